#pragma once
// CUDA samples' p2pBandwidthLatencyTest and bandwidthTest on a simulated machine: memcpy
// between GPUs (peer access on or off, one way or both ways) and between host and device.
//
// Copies run on copy engines, not NCCL kernels: no protocol overhead, only the links' payload
// rates (link_efficiency.hpp). Without peer access, CUDA stages a peer copy through pinned host
// memory: the data goes up to the host and then down, each half waiting for the other, so the
// copy is modelled store-and-forward (two transfers in sequence). A device-local copy reads and
// writes memory: bandwidthTest counts both, at the memory's achievable rate.

#include <vector>

#include "sim/topo/routing.hpp"
#include "sim/topo/topology.hpp"

namespace linksim::coll {

// p2pBandwidthLatencyTest copies 10,000,000 ints (40 MB) per measurement; bandwidthTest 32 MB.
inline constexpr double kP2pTestBytes = 40e6;
inline constexpr double kBandwidthTestBytes = 32e6;
// Launch and completion of one copy as the CUDA runtime sees it: the samples' own diagonal
// latency (1.26-1.33 us on the 2080 Ti log in ../shared/reference/measurements.md).
inline constexpr double kCopyLaunch_s = 1.3e-6;
// Achievable share of peak DRAM bandwidth for a device-local copy (STREAM-like): 0.75-0.88 in
// bandwidthTest D2D on T4, V100, A100 and 2080 Ti in the same file; 0.8 is taken.
inline constexpr double kDramCopyEfficiency = 0.8;

struct CopyMatrices {
  std::vector<std::vector<double>> uni_Bps;    // [src][dst]
  std::vector<std::vector<double>> bidi_Bps;   // both directions at once, summed
  std::vector<std::vector<double>> latency_s;  // one small copy
};

// All GPU pairs with peer access enabled (where the machine allows it) or disabled.
CopyMatrices p2p_matrices(const topo::Topology& topo, bool p2p_enabled);
// Which GPU pairs can access each other as peers.
std::vector<std::vector<bool>> peer_access(const topo::Topology& topo);

struct HostDeviceFigures {
  double h2d_Bps = 0;
  double d2h_Bps = 0;
  double d2d_Bps = 0;
};
// bandwidthTest for one GPU (pinned memory, its nearest socket).
HostDeviceFigures bandwidth_test(const topo::Topology& topo, topo::NodeId gpu);

}  // namespace linksim::coll
