#pragma once
// A collective's sends moved as NCCL's kernels move them: each channel's share of a send is cut
// into chunks per loop and slices per chunk (pipeline_constants.hpp), and every slice is a
// transfer of its own (src/device/prims_simple.h, prims_ll*.h). So fill and drain, and the cost
// of many small slices, come out of the simulation instead of a formula:
// - a sending CTA moves one slice at a time, then pays the protocol's per-slice
//   synchronisation before the next (its barrier and fence), and the slice reaches the receiver
//   one step latency (NCCL's hwLat) later;
// - slice i of a send waits for slice i of every send it follows (the data it forwards or
//   reduces), so steps overlap slice by slice, as NCCL's do, not step by step;
// - a sender may have `window_slices` slices unconsumed in its receiver's buffer (NCCL_STEPS
//   slots): slice m waits until the receiver has forwarded slice m - window.
//
// An algorithm declares its sends once, in an order where each comes after those it follows;
// the pipeline then emits loop after loop. Channels of one stream move in lockstep, so one
// transfer stands for all of them (`channels_per_stream` of them share each send's bytes).
//
// Cost: a lone collective (Lowering::alone) with many loops simulates enough of them for the
// pipeline to fill and repeat (its depth plus a margin) and adds the rest at the steady-state
// period measured between the last two, which is exact once the pipeline repeats itself (tests
// compare it with the full run); one that never repeats takes the rest from its trend. Inside a
// job, loops beyond kMaxJobLoops are merged (bigger slices, their synchronisation summed), which
// lengthens the fill of deep chains. A lone run on identical planes (a DGX's NVSwitches) simulates
// one plane of each set (route_planes.hpp).

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sim/coll/lowering.hpp"
#include "sim/coll/pipeline_constants.hpp"

namespace linksim::coll {

// Emits `loop_count` loops, each carrying `loop_share` of the data, with per-chunk
// synchronisation scaled by `sync_scale`, after `start`; fills `loop_arrivals` (when set) with
// each loop's last tasks; returns the task that ends them.
using LoopEmitter = std::function<engine::TaskId(
    Lowering& l, engine::TaskId start, int loop_count, double loop_share, double sync_scale,
    std::vector<std::vector<engine::TaskId>>* loop_arrivals)>;

// A lone collective simulates at first 3 x (depth + window) + kReplayMarginLoops loops (never
// fewer than kMinReplayLoops) and replays the rest at their steady period: the period that
// repeats for the most consecutive loops, at least max(kMinSteadyLoops, depth + window) of
// them, before the last depth + window loops (where the drain may reach), or the cycle of
// several loops that repeats so (steady_cycle: a window that lets a sender run a burst and then
// wait a round trip), replayed in whole cycles; a partial run without one is doubled, and a
// collective no longer than that runs whole.
// A lone collective none of whose partial runs repeats a period (streams of unequal pace that
// drift apart, as a multi-node tree's) takes its time from the trend once a partial run reaches
// kTrendMinTries x the first try: that run's time plus the rest at the slope between it and
// the run of half its loops. Not exact: the full run's own time wanders about that line by a
// few tenths of a percent from one size to the next (docs/nccl-tests.md, "Long collectives").
inline constexpr int kTrendMinTries = 4;
inline constexpr int kReplayMarginLoops = 4;
inline constexpr int kMinReplayLoops = 6;
inline constexpr int kMinSteadyLoops = 4;
inline constexpr int kMaxJobLoops = 64;

// Loops that repeat in cycles: every `loops` loops take `duration_s` more.
struct SteadyCycle {
  int loops = 1;
  double duration_s = 0;
};
// The steady state of a partial run whose loops ended at `loop_end_s`: the shortest cycle of at
// most `max_cycle_loops` loops whose duration (loop_end_s[k] - loop_end_s[k - L]) repeats for
// min_run_loops + L - 1 loops running, with the duration repeated longest. A cycle of one loop
// is the steady period between consecutive loop ends. Found on a partial run, whole cycles
// replayed after it are exact.
std::optional<SteadyCycle> steady_cycle(std::span<const double> loop_end_s, int min_run_loops,
                                        int max_cycle_loops);
inline constexpr int kMaxCycleLoops = 16;

// Runs `loops` loops through `emit` with the replay and merging rules above; `depth_loops` is
// how many loops the pipeline takes to fill and `window_loops` how many loops a sender may run
// ahead of its receiver. Granularity::every_slice runs every loop (the replay's reference).
// `memo_key`, when not empty, names everything `emit` adds beyond the lowering's own costs
// (Lowering::replay_key) and a partial run's loop count: the pipeline's sends and each loop's
// bytes. The partial runs are then kept in the communicator's memo and asked for once per key.
engine::TaskId emit_with_replay(Lowering& l, engine::TaskId start, int loops, int depth_loops,
                                int window_loops, const LoopEmitter& emit,
                                const std::string& memo_key = {});

class SlicePipeline {
 public:
  // `streams` of each rank are its CTAs' sequences (a ring's channels, a tree's up and down).
  SlicePipeline(ChunkShape shape, int channels_per_stream);

  // Slices normally pay their links' latency before they count as moved, so a CTA's next slice
  // waits for it. A network proxy keeps up to NCCL_STEPS chunks on the wire at once
  // (src/transport/net.cc sendProxyProgress posts each step as the GPU fills it): with this
  // set, a slice streams without latency, the CTA moves on, and the links' latency is paid
  // with the step latency on the way to the receiver, so only the window waits for it.
  void overlap_link_latency() { overlap_link_latency_ = true; }

  // Rank `from` sends `payload_bytes` to `to` on its CTA `stream`, slice by slice after the
  // same slice of each send in `after` (indices returned earlier). Returns the send's index.
  int add(int from, int to, int stream, double payload_bytes, std::span<const int> after = {});

  // Loops NCCL runs: a channel's largest share over the chunk size, at least 1.
  int loops() const;
  // Loops it takes a slice to cross the longest chain of sends (how long the pipeline fills).
  int depth_loops() const;

  // Adds the sends' slices to `l.sim()`, all after `start`; returns the task that ends them.
  engine::TaskId emit(Lowering& l, engine::TaskId start) const;

  // The full slice-by-slice run without replay or merging (tests compare emit with it).
  engine::TaskId emit_every_loop(Lowering& l, engine::TaskId start) const;

 private:
  // What emit's replay keys its partial runs by, besides the lowering's costs: the chunk shape,
  // channels and every send with its bytes per loop at `loop_share` (partial_run_memo.hpp).
  std::string memo_key(double loop_share) const;

  struct Send {
    int from = 0;
    int to = 0;
    int stream = 0;
    double payload_bytes = 0;
    std::vector<int> after;
    int consumer = -1;  // the send on `to` that forwards this one's data, if any
  };

  // Emits `loop_count` loops of payload / loop_share each; per-slice synchronisation scaled by
  // `sync_scale`. When `loop_arrivals` is set, it receives each loop's arrival tasks.
  engine::TaskId emit_loops(Lowering& l, engine::TaskId start, int loop_count, double loop_share,
                            double sync_scale,
                            std::vector<std::vector<engine::TaskId>>* loop_arrivals) const;

  // The most sends one CTA (rank and stream) makes per loop.
  int busiest_cta_sends() const;

  ChunkShape shape_;
  int channels_per_stream_ = 1;
  bool overlap_link_latency_ = false;
  std::vector<Send> sends_;
};

}  // namespace linksim::coll
