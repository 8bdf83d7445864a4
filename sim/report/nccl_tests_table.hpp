#pragma once
// nccl-tests' own output layout for a simulated sweep, so a prediction can be compared with a
// real run line by line, plus its -J JSON form.

#include <string>
#include <vector>

#include "sim/coll/sweep.hpp"
#include "sim/core/json_view.hpp"

namespace linksim::report {

struct NcclTestsHeader {
  std::string binary;                   // "all_reduce_perf"
  std::string machine;                  // topology name, printed as the host name
  std::vector<std::string> gpu_models;  // one per rank
  double min_bytes = 0;
  double max_bytes = 0;
  double step_factor = 0;
  double step_bytes = 0;
  std::size_t gpus_per_thread = 0;  // 0: every rank in one thread
  int iterations = 20;
};

// The table: header lines, the column heads, one line per size (out-of-place then in-place),
// and the footer with "# Avg bus bandwidth". With `explain`, a comment line after each size
// names the algorithm, protocol, channels and bottleneck link.
std::string format_nccl_tests(const NcclTestsHeader& header,
                              const std::vector<coll::SweepRow>& rows,
                              const coll::Communicator& comm, bool explain);

// Comment lines ("# ...", which nccl-tests parsers skip) giving each size's busbw at the slow
// end, nominal and at the fast end.
std::string format_nccl_tests_range(const std::vector<coll::SweepRow>& rows,
                                    const coll::SweepRange& range);

// With `range`, each result also carries "time_range" [fast, slow] and "bus_bw_range"
// [slow, fast].
Json nccl_tests_json(const NcclTestsHeader& header, const std::vector<coll::SweepRow>& rows,
                     const coll::SweepRange* range = nullptr);

}  // namespace linksim::report
