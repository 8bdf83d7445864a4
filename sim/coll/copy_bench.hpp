#pragma once
// CUDA samples' p2pBandwidthLatencyTest and bandwidthTest on a simulated machine: memcpy
// between GPUs (peer access on or off, one way or both ways) and between host and device.
//
// Copies run on copy engines, not NCCL kernels: no protocol overhead, only the links' payload
// rates (sim/topo/link_payload.hpp). Without peer access, CUDA stages a peer copy through pinned
// host memory: the data goes up to the host and then down, each half waiting for the other, so the
// copy is modelled store-and-forward (two transfers in sequence). A device-local copy reads and
// writes memory: bandwidthTest counts both, at the memory's achievable rate.

#include <vector>

#include "sim/topo/routing.hpp"
#include "sim/topo/topology.hpp"

namespace linksim::coll {

// p2pBandwidthLatencyTest copies numElems = 40,000,000 ints (160 MB) per measurement since
// cuda-samples e6ce58fe (2020, CUDA 11); bandwidthTest's quick mode 32 MB.
inline constexpr double kP2pTestBytes = 160e6;
inline constexpr double kBandwidthTestBytes = 32e6;
// Launch and completion of one copy as the CUDA runtime sees it: the samples' own diagonal
// latency (1.26-1.33 us on the 2080 Ti log in ../shared/reference/measurements.md).
inline constexpr double kCopyLaunch_s = 1.3e-6;
// A copy staged through host memory (peer access off, or no peer path) is two DMA copies: the
// runtime waits on the host for the first (device to pinned host buffer) to land before it
// issues the second. That hand-off is host-side synchronisation, not link time. Fitted once on
// the 2x 2080 Ti printout in ../shared/reference/measurements.md: staged GPU latencies 14.76,
// 13.95, 14.99, 13.63 us (mean 14.33) less the direct part, launch 1.3 us + two PCIe legs of
// 2 x 0.25 us each (2.3 us), leaves 12.0 us.
inline constexpr double kStagedCopyHandoff_s = 12.0e-6;
// The host's cost to enqueue one copy, as the sample's CPU latency matrix reports it (the
// stream is blocked while it enqueues, so this is API time only). Same printout: direct copies
// (the diagonal) 3.55, 3.32, 3.36, 3.27 us, mean 3.375; staged copies 11.08, 10.48, 10.34,
// 10.47 us, mean 10.59.
inline constexpr double kCopyEnqueue_s = 3.4e-6;
inline constexpr double kStagedCopyEnqueue_s = 10.6e-6;
// Achievable share of peak DRAM bandwidth for a device-local copy (STREAM-like): 0.75-0.88 in
// bandwidthTest D2D on T4, V100, A100 and 2080 Ti in the same file; 0.8 is taken.
inline constexpr double kDramCopyEfficiency = 0.8;

struct CopyMatrices {
  std::vector<std::vector<double>> uni_Bps;        // [src][dst]
  std::vector<std::vector<double>> bidi_Bps;       // both directions at once, summed
  std::vector<std::vector<double>> latency_s;      // one small copy, as the GPU times it
  std::vector<std::vector<double>> cpu_latency_s;  // the host's cost to enqueue it
};

// All GPU pairs with peer access enabled (where the machine allows it) or disabled. With peer
// access disabled every copy between two GPUs is staged through host memory, whatever links the
// GPUs share: cudaMemcpyPeer never uses NVLink or PCIe peer-to-peer without peer access, and
// never relays through a third GPU. `copy_bytes` is the size of each bandwidth copy.
CopyMatrices p2p_matrices(const topo::Topology& topo, bool p2p_enabled,
                          double copy_bytes = kP2pTestBytes);
// Which GPU pairs can access each other as peers.
std::vector<std::vector<bool>> peer_access(const topo::Topology& topo);

struct HostDeviceFigures {
  double h2d_Bps = 0;
  double d2h_Bps = 0;
  double d2d_Bps = 0;
};
// bandwidthTest for one GPU (pinned memory, its nearest socket), one copy of `copy_bytes`.
HostDeviceFigures bandwidth_test(const topo::Topology& topo, topo::NodeId gpu,
                                 double copy_bytes = kBandwidthTestBytes);

}  // namespace linksim::coll
