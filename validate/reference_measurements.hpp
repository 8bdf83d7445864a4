#pragma once
// The reference measurements that predictions are held against: public nccl-tests runs, as
// collected in tests/data/reference/measurements.json (a copy of
// ../shared/reference/measurements.json). This is the one place that reads that file.

#include <string>
#include <string_view>
#include <vector>

#include "sim/coll/collective.hpp"

namespace linksim::validate {

// ml-engineering's torch.distributed benchmark (network/benchmarks/all_reduce_bench.py): one
// blocking all-reduce at a time, timed by CUDA events after a barrier, busbw as nccl-tests'.
inline constexpr std::string_view kTorchAllReduceBench = "torch.distributed all_reduce_bench.py";

// One measured result (nccl-tests, or all_reduce_bench.py): which machine ran which operation at
// which size, and its bus bandwidth.
struct NcclTestsRecord {
  std::string machine;  // as the source names it, e.g. "Azure ND A100 v4 (8x A100-SXM4-80GB)"
  coll::Op op = coll::Op::all_reduce;
  double size_bytes = 0;
  double busbw_Bps = 0;
  std::string source_url;
};

// The nccl-tests records of a measurements file (a JSON array of records), in file order:
// those with "test": "nccl-tests", an operation linksim models (its binary name, e.g.
// "all_reduce_perf") and a busbw figure, and all_reduce_bench.py's all-reduce busbw figures. Other
// records (other tools, vendor statements) are skipped. Throws InputError naming the file and JSON
// path when the file cannot be read or a kept record lacks a number it needs.
std::vector<NcclTestsRecord> load_nccl_tests_records(const std::string& path);

// The shipped reference set, under the data folder (sim/core/data_dir.hpp).
std::string default_measurements_path();

}  // namespace linksim::validate
