#pragma once
// The CUDA samples' own options, as a user types them (p2pBandwidthLatencyTest and
// bandwidthTest), checked and turned into the report's options for `linksim p2p` and
// `linksim bandwidth`.

#include <cstddef>
#include <string>

#include "sim/report/copy_bench_table.hpp"
#include "sim/topo/topology.hpp"

namespace linksim::app {

// p2pBandwidthLatencyTest's options.
struct P2pTestArguments {
  bool p2p_read = false;  // also the P2P Reads matrices
  bool sm_copy = false;   // SM-initiated copies (modelled like copy-engine copies)
  std::string num_elems;  // 4-byte integers per bandwidth copy; empty: the sample's 40,000,000
};

// bandwidthTest's options. None of htod, dtoh and dtod set means all three, as in the sample.
struct BandwidthTestArguments {
  std::string memory = "pinned";  // pinned only (pageable transfers are not modelled)
  std::string mode = "quick";     // quick, range or shmoo
  bool csv = false;
  bool htod = false;
  bool dtoh = false;
  bool dtod = false;
  std::string device = "0";           // a GPU number, or "all" for the cumulative figure
  std::string start, end, increment;  // range mode's sizes in bytes
  bool write_combined = false;
};

// Throw InputError for a bad count, a device the machine lacks, an unmodelled memory mode, or a
// range without its three sizes, backwards or of more than 100,000 sizes.
report::P2pTestOptions p2p_test_options(const P2pTestArguments& arguments);

// p2pBandwidthLatencyTest prints six N x N matrices: linksim simulates it on at most this many
// GPUs (`topo show` summarizes a larger machine).
inline constexpr std::size_t kMaxP2pTestGpus = 256;
// Throws InputError (naming the machine file) for a machine with more GPUs than that.
void check_p2p_test_machine(const topo::Topology& machine);
report::BandwidthTestOptions bandwidth_test_options(const BandwidthTestArguments& arguments,
                                                    const topo::Topology& machine);

}  // namespace linksim::app
