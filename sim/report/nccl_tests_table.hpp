#pragma once
// nccl-tests' own output for a simulated run, byte for byte as nccl-tests 2.19.6 prints it
// (src/util.cu writeDeviceReport, writeResultHeader, writeBenchmarkLine*, writeResultFooter
// and src/common.cu run() @a0b82b22), and its -J JSON file (util.cu json*, version 3).

#include <optional>
#include <string>
#include <vector>

#include "sim/coll/sweep.hpp"

namespace linksim::report {

// One "#  Rank" line.
struct NcclTestsRank {
  int rank = 0;
  int pid = 0;
  std::string host;
  int device = 0;
  std::string bus_id;  // "0000:18:00", printed in brackets
  std::string gpu_name;
};

// What the preamble and the JSON's config say: the run's settings as the binary parsed them.
struct NcclTestsRun {
  std::string program;            // "all_reduce_perf"
  std::vector<std::string> argv;  // the binary's name and its arguments (JSON "args")
  std::vector<std::string> env;   // "NAME=value" (JSON "env")
  int nccl_version = 0;           // NCCL_VERSION_CODE printed as headers and library
  int threads = 1;
  int gpus_per_thread = 1;
  long long min_bytes = 0;  // as given, before any memory limit
  long long max_bytes = 0;
  long long step_factor = 1;  // > 1: multiplicative
  long long step_bytes = 0;
  int warmup_iters = 1;
  int iters = 20;
  int agg_iters = 1;
  int datacheck = 1;
  int graph_launches = 0;
  int unalign = 0;
  int blocking = 0;
  int per_iter_timing = 0;
  int per_iter_skip = 0;
  int parallel_init = 0;
  bool report_cputime = false;
  // Set when maxBytes did not fit the GPUs' memory: the reduced maximum.
  std::optional<long long> reduced_max_bytes;
  std::vector<NcclTestsRank> ranks;
  double min_bw_check_GBps = -1;  // NCCL_TESTS_MIN_BW, -1 when unset
};

// A row's extra linksim line (printed after it with --explain), empty for none.
using RowNotes = std::vector<std::string>;

// The whole standard output: preamble, table, footer. `notes`, when not empty, holds one line
// per row (each starting "#"), printed after the row; `before_table` (whole "#" lines) goes
// between the preamble and the column heads.
std::string format_nccl_tests(const NcclTestsRun& run, const std::vector<coll::SweepRow>& rows,
                              const RowNotes& notes = {}, const std::string& before_table = "");

// nccl-tests' footer figure: the mean of every busbw printed, in GB/s.
double nccl_tests_average_busbw_GBps(const std::vector<coll::SweepRow>& rows);

// The -J file, compact as nccl-tests writes it. `linksim_extras` (a JSON object's text, or
// empty) goes under the key "linksim", before "end_time". Start and end times are fixed
// ("1970-01-01 00:00:00"): nothing ran, and the same input gives the same file.
std::string nccl_tests_json(const NcclTestsRun& run, const std::vector<coll::SweepRow>& rows,
                            const std::string& linksim_extras = "");

// linksim's own lines, which nccl-tests does not print (the command shows them on request):
// how rings cross between nodes (empty on one node); one row's algorithm, protocol, channels
// and bottleneck; each size's busbw at the slow end, nominal and at the fast end of a
// calibrated machine's ranges.
std::string explain_network(const coll::Communicator& comm);
std::string explain_row(const coll::SweepRow& row, const coll::Communicator& comm);
std::string format_nccl_tests_range(const std::vector<coll::SweepRow>& rows,
                                    const coll::SweepRange& range);

// getFloatStr: `value` in `width` characters, "%*.2f", else .1f, .0f, then an exponent.
std::string nccl_tests_float(double value, int width);

}  // namespace linksim::report
