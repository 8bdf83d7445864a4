#pragma once
// nvbandwidth plain-text output: for each testcase a "Running <testcase>." line, a title such as
// "memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)", a matrix (N/A where a pair was not
// measured), and "SUM <testcase> <GB/s>". The arrow in the title says which of row and
// column is the source ("->": row to column, "<-": column to row, "<->": both ways).
//
// nvbandwidth does not print its buffer size; records assume its default, 512 MiB (override
// with `size_bytes`), and carry time = size / bandwidth.

#include <string>
#include <vector>

#include "calibrate/import_options.hpp"
#include "calibrate/record.hpp"

namespace linksim::calibrate {

inline constexpr double kNvbandwidthDefaultBufferBytes = 512.0 * 1024 * 1024;

// Unidirectional host/device copies become kind::h2d / d2h, unidirectional device-to-device
// copies kind::p2p_uni (p2p_enabled = true: nvbandwidth enables peer access); every other
// testcase (bidirectional, all-to-one, SM broadcast, ...) becomes "nvbandwidth:<testcase>",
// imported and reported but not fitted. The variant is the testcase name. Throws InputError
// naming file and line for a testcase without its SUM line (truncated), a non-numeric cell, a
// cell of 0 GB/s or below, a unit other than GB/s, or a GPU count other than
// options.expected_gpu_count (or a "Device N:" line or label beyond it).
std::vector<Record> import_nvbandwidth(const std::string& text, const std::string& file,
                                       const ImportOptions& options = {},
                                       double size_bytes = kNvbandwidthDefaultBufferBytes);
std::vector<Record> import_nvbandwidth_file(const std::string& path,
                                            const ImportOptions& options = {});

}  // namespace linksim::calibrate
