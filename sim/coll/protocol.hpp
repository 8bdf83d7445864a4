#pragma once
// What NCCL's protocols and algorithms cost, as constants with a physical meaning and a cited
// source (../shared/reference/nccl-model.md, NCCL 2.30 src/graph/tuning.cc and topo.h):
//
// - base latency: launching and synchronising the collective's kernels, once per operation;
// - hop latency: one step of the algorithm between two GPUs (a handshake through flags in
//   memory), by hardware class (NVLink, PCIe, network), algorithm and protocol;
// - wire efficiency: the share of link time that moves payload under the protocol (Simple's
//   synchronisation overhead, and LL's 4 B of data per 8 B store, LL128's 120 B per 128 B);
// - per-channel throughput caps: what one CTA (channel) can push, by GPU generation;
// - NVLS efficiency: the share of NVLink bandwidth NVLink SHARP reductions reach.
//
// Link payload efficiency (how much of a link's line rate carries data at all) lives with the
// links: see link_efficiency.hpp.

#include <string>

#include "sim/coll/collective.hpp"

namespace linksim::coll {

enum class HwClass { nvlink, pci, net };
std::string_view to_string(HwClass c);

// NCCL's generation rows: Volta (and older), Ampere (SM80-89, so Ada too), Hopper, Blackwell.
enum class GpuGeneration { volta, ampere, hopper, blackwell };
GpuGeneration generation_of(const std::string& architecture);

double base_latency_s(Algorithm a, Protocol p);
double hop_latency_s(Algorithm a, Protocol p, HwClass c);
double wire_efficiency(Protocol p);

// Single-node figures (NCCL's nNodes = 1 column), bytes per second.
double ll_max_total_Bps(GpuGeneration g);            // LL, all channels together
double ring_ll128_per_channel_Bps(GpuGeneration g);  // LL128 ring, per channel
double tree_per_channel_Bps(GpuGeneration g);        // Tree Simple, per channel
double nvls_efficiency(GpuGeneration g);             // 0 where NVLS does not exist

// Bytes per thread below which NCCL uses fewer channels (comm.h thresholds), and the threads
// per channel, for the channel-count rule in the planner.
double channel_threshold_bytes(Algorithm a, Protocol p, int ranks);
int threads_per_channel(Algorithm a, Protocol p);

}  // namespace linksim::coll
