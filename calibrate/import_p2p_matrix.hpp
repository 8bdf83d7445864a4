#pragma once
// p2pBandwidthLatencyTest (CUDA samples) output: the "Unidirectional/Bidirectional P2P=Disabled/
// Enabled Bandwidth Matrix (GB/s)" matrices and the "P2P=Disabled/Enabled Latency Matrix (us)"
// matrices with their GPU- and CPU-timed parts. Row = source GPU, column = destination GPU (the
// sample's "P2P Writes": row i copies to column j); a diagonal is a copy inside one GPU.
//
// What the sample measures (cuda-samples p2pBandwidthLatencyTest.cu): bandwidth matrices copy
// 10,000,000 ints (40,000,000 bytes) per copy, and count both directions' bytes in the
// bidirectional matrix and read+write on the diagonal; latency matrices copy 1 byte. Records
// keep the tool's bandwidth and carry the derived time of one copy.

#include <string>
#include <vector>

#include "calibrate/import_options.hpp"
#include "calibrate/record.hpp"

namespace linksim::calibrate {

inline constexpr double kP2pTestCopyBytes = 40'000'000;
inline constexpr double kP2pTestLatencyBytes = 1;

// Records: diagonal bandwidths as kind::d2d, off-diagonal ones as p2p_uni / p2p_bidi,
// off-diagonal latencies as p2p_latency (variant "gpu_timer" / "cpu_timer"; diagonal latencies
// are skipped). p2p_enabled is the matrix's P2P setting, and false where the log says the pair
// cannot access its peer ("Device=0 CANNOT Access Peer Device=1" or the connectivity matrix).
// Throws InputError naming file and line for a matrix cut short, a non-numeric cell, a unit
// other than GB/s or us, a GPU count other than options.expected_gpu_count, a row label that
// is not a column or comes twice (a row after the last one included), or a "Device: N," or
// "Device=N" line naming a GPU beyond the machine or the matrices.
std::vector<Record> import_p2p_matrix(const std::string& text, const std::string& file,
                                      const ImportOptions& options = {});
std::vector<Record> import_p2p_matrix_file(const std::string& path,
                                           const ImportOptions& options = {});

}  // namespace linksim::calibrate
