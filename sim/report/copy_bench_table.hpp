#pragma once
// p2pBandwidthLatencyTest's and bandwidthTest's printouts for a simulated machine, byte for
// byte in the layout of the CUDA samples' own printf formats:
//   cuda-samples Samples/5_Domain_Specific/p2pBandwidthLatencyTest/p2pBandwidthLatencyTest.cu
//   (commit c94ff366, 2025-09) and Samples/1_Utilities/bandwidthTest/bandwidthTest.cu (the last
//   version before its removal in commit 7d1730f3; CUDA 12.9 replaced it with nvbandwidth).
// Simulated values stand where the real tool prints device properties: the GPU's model name
// for prop.name, and the GPU's ordinal for pciBusID (pciDeviceID and pciDomainID 0).

#include <optional>
#include <string>
#include <vector>

#include "sim/coll/copy_bench.hpp"

namespace linksim::report {

struct P2pTestOptions {
  bool p2p_read = false;  // --p2p_read: also the P2P Reads matrices (modelled like writes)
  bool sm_copy = false;   // --sm_copy: SM-initiated copies (modelled like copy-engine copies)
  double copy_bytes = coll::kP2pTestBytes;  // numElems = N: 4 N bytes
};

std::string format_p2p_test(const topo::Topology& topo, const P2pTestOptions& options = {});

enum class BandwidthTestMode { quick, range, shmoo };

struct BandwidthTestOptions {
  BandwidthTestMode mode = BandwidthTestMode::quick;
  std::optional<int> device = 0;  // nullopt: every device, the cumulative figure
  bool htod = true;
  bool dtoh = true;
  bool dtod = true;
  bool csv = false;
  bool write_combined = false;
  // Range mode: sizes from start to end by increment (bytes).
  double start_bytes = 0;
  double end_bytes = 0;
  double increment_bytes = 0;
};

// The transfer sizes a bandwidthTest mode measures (the sample's QUICK_SIZE, its shmoo
// schedule, or the user's range).
std::vector<double> bandwidth_test_sizes(const BandwidthTestOptions& options);

// The GPUs a bandwidthTest run measures: the one device, or every GPU for the cumulative figure.
std::vector<topo::NodeId> bandwidth_test_gpus(const topo::Topology& topo,
                                              const BandwidthTestOptions& options);

std::string format_bandwidth_test(const topo::Topology& topo,
                                  const BandwidthTestOptions& options = {});

}  // namespace linksim::report
