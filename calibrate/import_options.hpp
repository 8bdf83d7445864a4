#pragma once
// Options every log importer takes.

#include <optional>
#include <string>

namespace linksim::calibrate {

struct ImportOptions {
  // GPUs in the machine the log is meant to describe (from --topology). A p2p or nvbandwidth
  // matrix covers every GPU the tool saw, so its size must equal this; an nccl-tests run may use
  // fewer GPUs than the machine has (-g 2 on an 8-GPU node) but not more.
  std::optional<int> expected_gpu_count;
  // The nccl-tests binary that wrote a log, when the command line said (FILE:all_reduce_perf);
  // empty: taken from the log, else from the file name.
  std::string nccl_tests_binary;
};

}  // namespace linksim::calibrate
