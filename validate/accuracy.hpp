#pragma once
// Predictions held against real measurements: nccl-tests busbw from public runs
// (validate/reference_measurements.hpp) against what linksim predicts for the same machine,
// operation and size.

#include <optional>
#include <string>
#include <vector>

#include "sim/coll/collective.hpp"
#include "validate/reference_measurements.hpp"

namespace linksim::validate {

struct AccuracyRow {
  coll::Op op = coll::Op::all_reduce;
  double size_bytes = 0;
  double measured_busbw_Bps = 0;
  double predicted_busbw_Bps = 0;
  std::string choice;   // "Ring/Simple x30"
  bool counted = true;  // false when the measured figure is too coarse to compare (< 0.1 GB/s)
  double error() const { return predicted_busbw_Bps / measured_busbw_Bps - 1; }
  // Why error() is no number, or "" when it is one: a source that rounds a tiny busbw to 0.
  std::string error_note() const {
    return measured_busbw_Bps > 0 ? "" : "n/a: the measured busbw is 0, so no ratio";
  }
};

struct AccuracySet {
  std::string name;
  std::string topology;
  std::string topology_file;  // relative to the repository: topologies/x.json, clusters too
  std::string source;
  std::string note;
  std::vector<AccuracyRow> rows;
  // Over counted rows: median and largest |error|.
  double median_abs_error = 0;
  double max_abs_error = 0;
};

// The reference sets of issue #4: the A100 NVSwitch all_reduce sweep and every 2x RTX 2080 Ti
// PCIe no-P2P run (from `records`), and NVIDIA's H100 figures (Ring ~370 GB/s, NVLS ~480 GB/s
// busbw; statements, so held here). Predictions use the shipped machine files. With
// `only_topology`, just the sets on that machine file (a caller that needs one set does not pay
// for every other's simulations).
std::vector<AccuracySet> evaluate_accuracy(const std::vector<NcclTestsRecord>& records,
                                           const std::string& only_topology = "");

}  // namespace linksim::validate
