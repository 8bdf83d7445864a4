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

// Single-node figures (NCCL's nNodes = 1 column), bytes per second.
double ll_max_total_Bps(GpuGeneration g);  // LL, all channels together (llMaxBws)
// LL128, per channel: NCCL's perChMaxRingLL128Bw. linksim applies it to every algorithm's
// LL128 (NCCL's Tree has a row of its own, perChMaxTreeLL128Bw, not modelled yet).
double ll128_per_channel_Bps(GpuGeneration g);

// comm.h: bytes per thread below which NCCL uses fewer channels (LL 8, LL128 8, Simple 64;
// Ring LL multiplies by the rank count, see algorithms/ring.cpp).
double channel_threshold_bytes_per_thread(Protocol p);
// Threads per channel (maxThreads): LL 512, LL128 640, Simple 512. Tree and NVLS run 640.
int threads_per_channel(Protocol p);

}  // namespace linksim::coll
