#pragma once
// CUDA samples' p2pBandwidthLatencyTest and bandwidthTest on a simulated machine: memcpy
// between GPUs (peer access on or off, one way or both ways) and between host and device.
//
// Copies run on copy engines, not NCCL kernels: no protocol overhead, only the links' payload
// rates (sim/topo/link_payload.hpp). How a copy moves, direct or staged through pinned host
// memory in pipelined chunks, is sim/topo/copy_model.hpp; here each chunk's legs are engine
// transfers, so copies running at once (the bidirectional matrices) share links as the engine
// shares them. A device-local copy reads and writes memory: bandwidthTest counts both, at the
// memory's achievable rate.

#include <vector>

#include "sim/topo/copy_model.hpp"
#include "sim/topo/routing.hpp"
#include "sim/topo/topology.hpp"

namespace linksim::coll {

// p2pBandwidthLatencyTest's copy (160 MB, topo::kP2pTestBytes); bandwidthTest's quick mode 32 MB.
inline constexpr double kP2pTestBytes = topo::kP2pTestBytes;
inline constexpr double kBandwidthTestBytes = 32e6;
// The latency matrices time copies of numElems = 4 ints, "1-int4 transfer": 16 bytes.
inline constexpr double kLatencyCopyBytes = 16;
// Every other constant of the copy model lives in one table: topo::kCopyConstants
// (sim/topo/copy_model.hpp), each row with its source. The names nvbandwidth.cpp uses:
inline constexpr double kCopyLaunch_s = topo::kCopyConstants.launch_s;
inline constexpr double kDramCopyEfficiency = topo::kCopyConstants.dram_copy_efficiency;

struct CopyMatrices {
  std::vector<std::vector<double>> uni_Bps;        // [src][dst]
  std::vector<std::vector<double>> bidi_Bps;       // both directions at once, summed
  std::vector<std::vector<double>> latency_s;      // one 16-byte copy, as the GPU times it
  std::vector<std::vector<double>> cpu_latency_s;  // the host's cost to enqueue it
};

// All GPU pairs with peer access enabled (where the machine allows it) or disabled. With peer
// access disabled every copy between two GPUs is staged through host memory, whatever links the
// GPUs share: cudaMemcpyPeer never uses NVLink or PCIe peer-to-peer without peer access, and
// never relays through a third GPU. `copy_bytes` is the size of each bandwidth copy. The one-way
// matrix is topo::pair_copy_bandwidth_Bps (what `topo show` reports); the others are simulated.
CopyMatrices p2p_matrices(const topo::Topology& topo, bool p2p_enabled,
                          double copy_bytes = kP2pTestBytes);
// Copies started together, each chunk leg an engine transfer (sim/topo/copy_model.hpp's
// recurrence as tasks); the time until the last lands. Alone, a copy takes topo::copy_time_s.
double simulated_copy_time_s(const topo::Topology& topo, const std::vector<topo::CopyPath>& copies,
                             double bytes);

// Which GPU pairs can access each other as peers: a direct peer path (NVLink without a relay
// GPU, or PCIe peer-to-peer).
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
