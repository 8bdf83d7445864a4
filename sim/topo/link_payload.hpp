#pragma once
// How much of a link's line rate carries payload. A topology's "theoretical" figures are line
// rates; packet headers, flow control and encoding take a share before any collective protocol
// adds its own (sim/coll/protocol.hpp). "effective" figures (measured or calibrated) are used as
// is.
//
// NVLink: copy engines move 47.9 of 50 GB/s over a V100 NV2 pair and 18.31 of 20 GB/s over a
// P100 link (Dell C4130 p2pBandwidthLatencyTest), 48.32 of 50 on another V100 node
// (GPUInspector): 0.958. NVLink 3 carries less of its line rate: copies between the pairs of a
// DGX A100's GPUs over all 12 links (300 GB/s a direction; PC2 Paderborn, GPUInspector
// p2p_bandwidth, 40 MB, in the same file) run at 236-248 GiB/s over the full matrix, 242 GiB/s
// = 259.8 GB/s typically: 0.866 (their average, 229.63 GiB/s, is pulled down by a few slow
// pairs, the slowest at 173.5, which says more about those pairs than about the link); NVLink 4
// and 5 have no such measurement there and keep 0.958. PCIe: 128b/130b encoding, TLP headers at
// 256 B payload and DLLP traffic leave ~82% (pinned bandwidthTest: 13.2 of 16 GB/s on Gen3,
// 26.1 of 32 on Gen4). InfiniBand: "24GB/s is the peak per 200G NIC" (nccl-tests#119): 0.96.
// These are the sources in ../shared/reference/measurements.md; no per-machine figure is used.

#include <vector>

#include "sim/topo/routing.hpp"
#include "sim/topo/topology.hpp"

namespace linksim::topo {

double payload_efficiency(const Link& link);
// What the link carries in payload bytes per second, per direction: its line rate times
// payload_efficiency. Every consumer (collectives, copies, task graphs, summaries) uses this.
double payload_bandwidth_Bps(const Link& link);

// Capacity of every channel of a machine in payload bytes per second, by channel id.
std::vector<double> payload_capacities_Bps(const Topology& topo);

// A route's payload rate when every path runs at its slowest channel's payload rate (as
// Route::bandwidth_Bps, with payload rates for line rates).
double payload_bandwidth_Bps(const Topology& topo, const Route& route);

// What a copy between two GPUs sustains, staged or direct: pair_copy_bandwidth_Bps in
// copy_model.hpp.

}  // namespace linksim::topo
