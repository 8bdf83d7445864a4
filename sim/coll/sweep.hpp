#pragma once
// An nccl-tests sweep on a simulated machine: the same sizes, counts and columns the real
// binaries produce (../shared/reference/nccl-model.md §1), with times from the simulator.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/coll/collective_sim.hpp"
#include "sim/coll/nccl_env.hpp"
#include "sim/topo/gpu_model.hpp"

namespace linksim::coll {

// How nccl-tests launches the timed operations (src/common.cu BenchTime @a0b82b22): each of
// `iterations` (-n) iterations is one group of `agg_iters` (-m) operations, launched by a thread
// that drives `gpus_per_thread` (-g) GPUs; with `graph_launches` (-G) k > 0 all n x m are
// captured once and the graph launched k times; `blocking` (-z) > 0 waits for each iteration.
struct LaunchPacing {
  int gpus_per_thread = 1;
  int iterations = 20;
  int agg_iters = 1;
  int graph_launches = 0;
  int blocking = 0;
};

struct SweepSpec {
  Op op = Op::all_reduce;
  double min_bytes = 32 * 1024 * 1024;  // nccl-tests defaults: -b 32M -e 32M
  double max_bytes = 32 * 1024 * 1024;
  double step_factor = 0;           // -f; 0 = add step_bytes, else an integer >= 2
  double step_bytes = 1024 * 1024;  // -i
  std::string dtype = "float";
  std::string redop = "sum";
  // How the timed operations are launched. pacing.gpus_per_thread 0 means every rank in one
  // thread, as a single-process run with -g N.
  LaunchPacing pacing{.gpus_per_thread = 0};
  int root = 0;
  std::optional<Algorithm> algorithm;
  std::optional<Protocol> protocol;
  // NCCL_ALGO / NCCL_PROTO lists (nccl_selection.hpp): empty allows every one.
  std::vector<Algorithm> allowed_algorithms;
  std::vector<Protocol> allowed_protocols;
  // The NCCL release to follow (Request::nccl_version).
  int nccl_version = kModelledNcclVersion;
  // Request::simulate_every_candidate, simulate_every_loop.
  bool simulate_every_candidate = false;
  bool simulate_every_loop = false;
  // Request::min_channels, max_channels.
  int min_channels = 0;
  int max_channels = 0;
  // NCCL's environment for the communicators built from this spec (run_sweep_range, and the
  // nccl-tests run's machines): nullopt leaves the Communicator's default (a cluster's nccl_env);
  // run_sweep takes the one its communicator was built with.
  std::optional<NcclEnvironment> nccl_env;
  // Called after each row with (rows done, rows in all), for a progress display; prints nothing.
  // With several threads it is called from them, one call at a time.
  std::function<void(std::size_t done, std::size_t total)> progress;
  // Threads that simulate sizes at once (at least 1). The sizes are independent, so the rows
  // are the same, in the same order, whatever the count.
  int threads = 1;
};

struct SweepRow {
  double size_bytes = 0;  // the "size" column
  long long count = 0;    // the "count" column (per-rank for all_gather, reduce_scatter, alltoall)
  std::string type;
  std::string redop;  // "none" for ops that do not reduce
  int root = -1;      // -1 for ops without a root
  // The out-of-place run, and the in-place one too unless `in_place` is set: on several ranks
  // both move the same data.
  Outcome outcome;
  // The in-place run where it differs: on one rank, where NCCL copies the send buffer into the
  // receive buffer out of place and does nothing in place (one_rank_copy_s).
  std::optional<Outcome> in_place;
  double cpu_time_s = 0;  // nccl-tests -C's figure (pace_like_nccl_tests)

  const Outcome& in_place_outcome() const { return in_place ? *in_place : outcome; }
};

// What NCCL does on the GPU for a collective on one rank beyond its launch (enqueue.cc
// taskAppend -> ncclLaunchOneRank, src/device/onerank.cu @5067397c): no communication, but out
// of place a device-to-device copy of the receive buffer's `bytes` from the send buffer
// (cudaMemcpyAsync); in place nothing, except where the reduction is one NCCL runs as
// PreMulSum (avg on a floating-point type, nccl-tests' mulsum), whose kernel reads and writes
// the whole buffer either way. The copy reads and writes each byte in the GPU's memory at the
// share of its peak a device-local copy reaches (topo::kCopyConstants.dram_copy_efficiency):
// 2 x bytes / (hbm_bandwidth x efficiency) seconds, 0 when the model's bandwidth is unknown.
double one_rank_copy_s(const topo::GpuModel& gpu, double bytes);
// Whether that copy runs in place too: `redop` (an nccl-tests -o name) on `dtype` is PreMulSum.
bool one_rank_copies_in_place(Op op, const std::string& redop, const std::string& dtype);

// Bytes per element of an nccl-tests dtype; 0 when unknown.
int dtype_bytes(const std::string& dtype);
// nccl-tests size arguments as its parsesize reads them (sscanf "%lf %1s"): a number and an
// optional K/M/G (powers of 1024) of which only the first letter counts, so "8G" and "8GB" are
// the same; nullopt if invalid.
std::optional<double> parse_nccl_size(const std::string& text);

// Time per operation nccl-tests reports when each operation takes `op_time_s` on the GPUs and
// one launch takes `per_gpu_launch_s` per GPU on the host. One group (a thread's -m operations
// on its g GPUs) costs the host H = g L (NCCL launches one kernel per GPU per group) and the
// GPUs W = m T. Launches run ahead of the GPUs, so n iterations take n max(H, W) + min(H, W)
// (a two-stage pipeline), divided by n m. Blocking (-z >= 1) waits after each iteration:
// n (H + W). A CUDA graph (-G k) holds all n m operations: k launches of H against W = n m T.
// `cpu_time_s` is -C's figure: the host's time in the launch loop before it waits for the
// GPUs, per operation (H / m; H + W per iteration when blocking; k H with a graph).
struct PacedTime {
  double time_s = 0;
  double cpu_time_s = 0;
  bool host_bound = false;  // the host's stage is the longer one
};
PacedTime pace_like_nccl_tests(double op_time_s, double per_gpu_launch_s,
                               const LaunchPacing& pacing);

// nccl-tests' pace on a machine whose host launch cost is known (topo::HostLaunch): it times
// `iterations` (-n) operations launched back to back and divides, so the GPUs' work T and the
// host's launches overlap. One thread driving g GPUs launches an iteration every g x L (L the
// per-GPU cost). Launch-bound, the total is n g L plus the last operation's T; GPU-bound, the
// first launch g L plus n T. Per iteration: max(g L, T) + min(g L, T) / n. Returns `o` with
// that applied (host_bound set when g L > T); unchanged when the machine's L is unknown (0).
Outcome with_host_launch_floor(Outcome o, const topo::Topology& machine, int gpus_per_thread,
                               int iterations, double size_bytes);

// nccl-tests' per-rank element count (the "count" column), the "size" column and the bytes its
// *GetBw divides by the time (src/<op>.cu *GetCollByteCount / *GetBw @a0b82b22), for a swept
// size on n ranks of a type of `type_bytes`.
struct NcclTestsSizes {
  long long count = 0;
  double size_bytes = 0;     // max(send bytes, receive bytes) of one rank
  double request_bytes = 0;  // what the simulator moves (Request::size_bytes)
  double algbw_bytes = 0;
};
NcclTestsSizes nccl_tests_sizes(Op op, double swept_bytes, int type_bytes, int n);

// Bounds on what a sweep may ask for, so that a step factor of 1.000001 or a 1-byte step
// cannot run without end.
inline constexpr std::size_t kMaxSweepRows = 10'000;
inline constexpr double kMaxSweepBytes = 64.0 * 1024 * 1024 * 1024;  // 64 GiB

// Rows the spec asks for (sizes from min_bytes to max_bytes), saturating at kMaxSweepRows + 1.
std::size_t sweep_row_count(const SweepSpec& spec);

// Checks a spec before anything runs. Throws InputError whose location names the field
// ("step factor", "step size", "minimum size", "maximum size", "data type") for: a step factor
// that is not an integer >= 2 (nccl-tests' -f is an integer), a step size <= 0 without a
// factor, sizes that are not finite, min > max, a maximum above kMaxSweepBytes, an unknown data
// type, or more than kMaxSweepRows rows.
void validate_sweep_spec(const SweepSpec& spec);

// Runs the sweep; validate_sweep_spec first (its InputError), then InputError (the machine's
// file) for what the communicator cannot do.
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

}  // namespace linksim::coll
