#pragma once
// What NCCL's protocols cost whatever the algorithm, as constants with a physical meaning and a
// cited source (../shared/reference/nccl-model.md, NCCL 2.30 src/graph/tuning.cc, comm.h):
//
// - wire efficiency: the share of link time that moves payload under the protocol (Simple's
//   synchronisation overhead, and LL's 4 B of data per 8 B store, LL128's 120 B per 128 B);
// - the LL and LL128 throughput caps, by GPU generation;
// - the bytes per thread below which NCCL runs fewer channels, and the threads per channel.
//
// Each algorithm's own constants (base and hop latency, its caps, NVLS efficiency) live in its
// file under algorithms/. Link payload efficiency (how much of a link's line rate carries data
// at all) lives with the links: see sim/topo/link_payload.hpp.

#include <string>
#include <string_view>

#include "sim/coll/collective.hpp"

namespace linksim::coll {

enum class HwClass { nvlink, pci, net };
std::string_view to_string(HwClass c);

// NCCL's generation rows: Volta (and older), Ampere (SM80-89, so Ada too), Hopper, Blackwell.
enum class GpuGeneration { volta, ampere, hopper, blackwell };
GpuGeneration generation_of(const std::string& architecture);

double wire_efficiency(Protocol p);
// The protocol's payload per byte it puts on a network link: LL's 4 B of data per 8 B line and
// LL128's 120 B per 128 B travel as they are, but Simple's synchronisation is GPU-side work the
// NIC does not see (the proxy posts whole chunks), so Simple's share is 1.
double network_payload_share(Protocol p);

// LL's throughput, all channels together (llMaxBws), bytes per second: on one node by GPU
// generation; on several by CPU vendor (Intel's row is Volta's, AMD's Ampere's) and node count.
double ll_max_total_Bps(GpuGeneration g, int nodes = 1, bool amd_cpu = false);
// LL128, per channel: NCCL's perChMaxRingLL128Bw. linksim applies it to every algorithm's
// LL128 (NCCL's Tree has a row of its own, perChMaxTreeLL128Bw, not modelled yet).
double ll128_per_channel_Bps(GpuGeneration g);

// comm.h: bytes per thread below which NCCL uses fewer channels (LL 8, LL128 8, Simple 64;
// Ring LL multiplies by the rank count, see algorithms/ring.cpp).
double channel_threshold_bytes_per_thread(Protocol p);
// Threads per channel (maxThreads): LL 512, LL128 640, Simple 512. Tree and NVLS run 640.
int threads_per_channel(Protocol p);

// NCCL_NET_OVERHEAD: what a network post costs the proxy, seconds (Intel and others 1 us, AMD
// 2 us; tuning.cc). On several nodes every step pays at least this (x3 for Simple).
double net_overhead_s(bool amd_cpu);

}  // namespace linksim::coll
