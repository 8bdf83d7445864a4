#pragma once
// What NCCL's two CollNet algorithms (algorithms/collnet_direct.cpp, collnet_chain.cpp) share:
// when NCCL runs them at all, and their constants, in one table. Sources: nccl @5067397c
// (NCCL 2.30.7), ../shared/reference/nccl-model.md §2.

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "sim/coll/communicator.hpp"
#include "sim/coll/nccl_tuner_model.hpp"
#include "sim/coll/protocol.hpp"

namespace linksim::coll {

enum class CollNetVariant { direct, chain };

// enqueue.cc:2000-2003: CollNetDirect and CollNetChain run on at most NCCL_MAX_DIRECT_ARITY + 1
// (device.h:199, 7 + 1) GPUs per node.
inline constexpr int kCollNetMaxLocalRanks = 8;
// search.cc: the CollNet graph searches at most this many channels (collNetGraph maxChannels).
inline constexpr int kMaxCollNetChannels = 8;
// tuning.cc:250-252: both run NCCL_MAX_NTHREADS (device.h:93) threads per channel.
inline constexpr int kCollNetThreadsPerChannel = 640;
// tuning.cc:594-595: threadThresholds for both, bytes per thread (Simple).
inline constexpr double kCollNetThresholdBytesPerThread = 512;
// tuning.cc:420: CollNetDirect's "0.4 us arity serialization latency", per local peer, paid on
// the way up and the way down.
inline constexpr double kCollNetAritySerialization_us = 0.4;
// tuning.cc:152 (baseLatencies 0 for both) and 160/166/172 (hwLatencies, Simple; LL and LL128
// are 0: not used), microseconds, by [Direct, Chain], then class [NVLINK, PCI, NET].
inline constexpr std::array<std::array<double, 3>, 2> kCollNetHopLatencySimple_us{
    {{3.7, 3.7, 31}, {2.8, 2.8, 30}}};
// tuning.cc:386-388: with one GPU per node the network latency is Tree's (NET, Simple), us.
inline constexpr double kOneGpuPerNodeNetLatencySimple_us = 14;

// The step latency by protocol and class, seconds; 0 but for Simple.
double collnet_hop_latency_s(CollNetVariant v, Protocol p, HwClass c);
// The network step a lowering pays (`net_hop_s`, the variant's NET latency, scaled): Tree's
// instead with one GPU per node (tuning.cc:386-388).
double collnet_net_step_s(CollNetVariant v, const Communicator& comm, double net_hop_s);
// Both send at least one head's part out of a rank: S / H, H the heads (one per ring).
double collnet_least_bytes_sent_by_a_rank(const Communicator& comm, double size_bytes);

// What `comm` lacks for either CollNet algorithm, as phrases for a reason (empty when nothing):
// several nodes (tuning.cc); a fabric that reduces in-network (tuning.cc:504-506, CollNet is
// off without NCCL_COLLNET_ENABLE=1 and a CollNet plugin: the fabric's
// "in_network_reduction"); at most kCollNetMaxLocalRanks GPUs per node; a GPU with a NIC of its
// own on each node (a head).
std::vector<std::string> collnet_missing(const Communicator& comm);

// The CollNet graph NCCL's cost model reads: one channel per head (a GPU with a NIC of its own,
// at most kMaxCollNetChannels), at the speed the ring graph's channels give together per head;
// nullopt with no head or no ring graph.
std::optional<NcclTunerGraph> collnet_graph(const Communicator& comm, const NcclModelInputs& in);

}  // namespace linksim::coll
