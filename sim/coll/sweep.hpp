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
  // GPUs one host thread drives (nccl-tests' nGpus, -g): every rank when 0, as in a single
  // process run with -g N. Matters only on a machine with a known host launch cost.
  int gpus_per_thread = 0;
  int iterations = 20;  // -n
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

// nccl-tests' pace on a machine whose host launch cost is known (topo::HostLaunch): it times
// `iterations` (-n) operations launched back to back and divides, so the GPUs' work T and the
// host's launches overlap. One thread driving g GPUs launches an iteration every g x L (L the
// per-GPU cost). Launch-bound, the total is n g L plus the last operation's T; GPU-bound, the
// first launch g L plus n T. Per iteration: max(g L, T) + min(g L, T) / n. Returns `o` with
// that applied (host_bound set when g L > T); unchanged when L is unknown (0).
Outcome with_host_launch_floor(Outcome o, const topo::Topology& machine, int gpus_per_thread,
                               int iterations, double size_bytes);

// Runs the sweep. Throws std::invalid_argument for a bad spec (unknown dtype, min > max, ...).
std::vector<SweepRow> run_sweep(const Communicator& comm, const SweepSpec& spec);

// The same sweep on a calibrated machine with every ranged figure at its slow and at its fast
// end (sim/topo/uncertainty.hpp); rows parallel to the nominal sweep's.
struct SweepRange {
  std::vector<SweepRow> slow;
  std::vector<SweepRow> fast;
};
// On `gpus` of `machine`; nullopt when the machine has no ranges.
std::optional<SweepRange> run_sweep_range(const topo::Topology& machine,
                                          const std::vector<topo::NodeId>& gpus,
                                          const SweepSpec& spec);

// nccl-tests' footer figure: mean of every busbw printed (out-of-place and in-place).
double average_busbw_Bps(const std::vector<SweepRow>& rows);

}  // namespace linksim::coll
