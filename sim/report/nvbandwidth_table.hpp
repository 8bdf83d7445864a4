#pragma once
// nvbandwidth's output for a simulated machine, byte for byte in the layout of the tool's own
// code, NVIDIA/nvbandwidth v0.8 (commit 66746a3): output.cpp (plain text), json_output.cpp
// (-j), PeerValueMatrix's operator<< in inline_common.h (the matrices and their SUM lines),
// Output::listTestcases() (-l), and the verbose lines of memcpy.cpp.
//
// Simulated values stand where the real tool prints its build and system: "Built from Git
// version: unknown" (what a build without git information prints), CUDA versions 0 and driver
// version "simulated", the topology's name for the host name, and for each GPU its model name
// with PCI address 00000000:<ordinal>:00.

#include <string>
#include <vector>

#include "sim/coll/nvbandwidth.hpp"

namespace linksim::report {

inline constexpr const char* kNvbandwidthVersion = "v0.8";

struct NvbandwidthPrintOptions {
  coll::NvbOptions run;
  bool json = false;            // -j
  bool verbose = false;         // -v: per-sample lines, MIN/MAX/AVG
  bool perf_formatter = false;  // --perfFormatter: "&&&& PERF" instead of "SUM"
};

// Runs `testcases` (indices into coll::nvbandwidth_testcases(), in order) and prints them as
// the tool does.
std::string format_nvbandwidth(const topo::Topology& topo,
                               const std::vector<std::size_t>& testcases,
                               const NvbandwidthPrintOptions& options);

// -l: the version lines and the testcase list. The tool prints nothing for -l with -j.
std::string format_nvbandwidth_list(bool json);

// One matrix as operator<< prints it after std::fixed and std::setprecision(2): a header of
// GPU columns, a row per row, a blank line, and its SUM (or PERF) line, and with `verbose` its
// MIN, MAX and AVG lines.
std::string format_nvbandwidth_matrix(const coll::NvbMatrix& matrix, bool perf_formatter,
                                      bool verbose);

}  // namespace linksim::report
