#pragma once
// An nccl-tests sweep on a simulated machine: the same sizes, counts and columns the real
// binaries produce (../shared/reference/nccl-model.md §1), with times from the simulator.

#include <optional>
#include <string>
#include <vector>

#include "sim/coll/collective_sim.hpp"

namespace linksim::coll {

struct SweepSpec {
  Op op = Op::all_reduce;
  double min_bytes = 32 * 1024 * 1024;  // nccl-tests defaults: -b 32M -e 32M
  double max_bytes = 32 * 1024 * 1024;
  double step_factor = 0;           // -f; > 1 overrides step_bytes
  double step_bytes = 1024 * 1024;  // -i
  std::string dtype = "float";
  std::string redop = "sum";
  int root = 0;
  std::optional<Algorithm> algorithm;
  std::optional<Protocol> protocol;
};

struct SweepRow {
  double size_bytes = 0;  // the "size" column
  long long count = 0;    // the "count" column (per-rank for all_gather, reduce_scatter, alltoall)
  std::string type;
  std::string redop;  // "none" for ops that do not reduce
  int root = -1;      // -1 for ops without a root
  Outcome outcome;    // same for out-of-place and in-place: the simulator moves the same data
};

// Bytes per element of an nccl-tests dtype; 0 when unknown.
int dtype_bytes(const std::string& dtype);
// nccl-tests size arguments: "8", "1K", "8G" (K/M/G are powers of 1024); nullopt if invalid.
std::optional<double> parse_nccl_size(const std::string& text);

// Runs the sweep. Throws std::invalid_argument for a bad spec (unknown dtype, min > max, ...).
std::vector<SweepRow> run_sweep(const Communicator& comm, const SweepSpec& spec);

// nccl-tests' footer figure: mean of every busbw printed (out-of-place and in-place).
double average_busbw_Bps(const std::vector<SweepRow>& rows);

}  // namespace linksim::coll
