#include "sim/coll/slice_pipeline.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <tuple>

namespace linksim::coll {
namespace {

using engine::TaskId;

constexpr TaskId kNone = static_cast<TaskId>(-1);

}  // namespace

SlicePipeline::SlicePipeline(ChunkShape shape, int channels_per_stream)
    : shape_(shape), channels_per_stream_(std::max(1, channels_per_stream)) {
  shape_.slices = std::max(1, shape_.slices);
  shape_.window_slices = std::max(shape_.slices + 1, shape_.window_slices);
}

int SlicePipeline::add(int from, int to, int stream, double payload_bytes,
                       std::span<const int> after) {
  const int id = static_cast<int>(sends_.size());
  Send s{from, to, stream, payload_bytes, {after.begin(), after.end()}, -1};
  for (int a : after) {
    if (a < 0 || a >= id) throw std::logic_error("a send follows one not declared before it");
    Send& earlier = sends_[static_cast<std::size_t>(a)];
    if (earlier.consumer < 0 && earlier.to == from) earlier.consumer = id;
  }
  sends_.push_back(std::move(s));
  return id;
}

int SlicePipeline::loops() const {
  double most = 0;
  for (const Send& s : sends_)
    most = std::max(most, s.payload_bytes);
  const double per_channel = most / channels_per_stream_;
  return std::max(1, static_cast<int>(std::ceil(per_channel / shape_.chunk_bytes - 1e-9)));
}

TaskId SlicePipeline::emit_every_loop(Lowering& l, TaskId start) const {
  const int n = loops();
  return emit_loops(l, start, n, 1.0 / n, 1.0, nullptr);
}

TaskId emit_with_replay(Lowering& l, TaskId start, int loops, int depth_loops, int window_loops,
                        const LoopEmitter& emit) {
  const int n = std::max(1, loops);
  // The period is read between two loops that have filled and that `depth_loops` more loops
  // follow, so the drain at the end of the partial run does not show in it.
  // A send may run `window_loops` loops ahead of its consumer at every hop, so the pipeline
  // settles only after depth x (1 + window) loops.
  const int settled = depth_loops * (1 + window_loops);
  const int replay_from = std::max(kMinReplayLoops, settled + depth_loops + kReplayMarginLoops);
  const auto measured = static_cast<std::size_t>(replay_from - depth_loops - 1);
  if (l.alone() && n > replay_from) {
    // Simulate replay_from loops apart, read the steady period, and stand the whole in by one
    // delay: those loops' time plus the remaining loops at the period. Their links' load goes
    // to the bottleneck report.
    engine::Simulation one(l.comm().capacities_Bps(), l.sim().gpu_count());
    Lowering sub(l.comm(), l.request(), l.choice(), l.algorithm(), one);
    std::vector<std::vector<TaskId>> arrivals;
    emit(sub, one.add_delay(0, {}), replay_from, 1.0 / n, 1.0, &arrivals);
    engine::RunOptions options;
    options.record_intervals = false;
    const engine::Timeline t = one.run(options);
    auto loop_end = [&](std::size_t k) {
      double end = 0;
      for (TaskId id : arrivals[k])
        end = std::max(end, t.task_end_s[id]);
      return end;
    };
    const double period_s = std::max(0.0, loop_end(measured) - loop_end(measured - 1));
    l.add_saturation_apart(t.channels, static_cast<double>(n) / replay_from);
    return l.sim().add_delay(t.makespan_s + (n - replay_from) * period_s, {&start, 1});
  }
  if (!l.alone() && n > kMaxJobLoops) {
    const int merged = (n + kMaxJobLoops - 1) / kMaxJobLoops;
    const int count = (n + merged - 1) / merged;
    return emit(l, start, count, 1.0 / count, static_cast<double>(n) / count, nullptr);
  }
  return emit(l, start, n, 1.0 / n, 1.0, nullptr);
}

int SlicePipeline::depth_loops() const {
  // A slice crosses the longest chain of sends; a CTA runs its sends of one loop back to back,
  // so a chain as long as a CTA's sends per loop (a ring's steps) fills within one loop.
  std::vector<int> depth(sends_.size(), 1);
  std::map<std::pair<int, int>, int> per_cta;
  int most = 0;
  int busiest = 1;
  for (std::size_t i = 0; i < sends_.size(); ++i) {
    for (int a : sends_[i].after)
      depth[i] = std::max(depth[i], depth[static_cast<std::size_t>(a)] + 1);
    most = std::max(most, depth[i]);
    busiest = std::max(busiest, ++per_cta[{sends_[i].from, sends_[i].stream}]);
  }
  return (most + busiest - 1) / busiest;
}

TaskId SlicePipeline::emit(Lowering& l, TaskId start) const {
  int busiest = 1;
  std::map<std::pair<int, int>, int> per_cta;
  for (const Send& s : sends_)
    busiest = std::max(busiest, ++per_cta[{s.from, s.stream}]);
  const int per_loop = busiest * shape_.slices;
  const int window_loops = (shape_.window_slices + per_loop - 1) / per_loop;
  return emit_with_replay(l, start, loops(), depth_loops(), window_loops,
                          [this](Lowering& lw, TaskId s, int count, double share, double scale,
                                 std::vector<std::vector<TaskId>>* arrivals) {
                            return emit_loops(lw, s, count, share, scale, arrivals);
                          });
}

TaskId SlicePipeline::emit_loops(Lowering& l, TaskId start, int loop_count, double loop_share,
                                 double sync_scale,
                                 std::vector<std::vector<TaskId>>* loop_arrivals) const {
  engine::Simulation& sim = l.sim();
  const int q_count = shape_.slices;
  const std::size_t items = static_cast<std::size_t>(loop_count) * q_count;
  std::vector<std::vector<TaskId>> done(sends_.size(), std::vector<TaskId>(items, kNone));
  std::vector<std::vector<TaskId>> arrive(sends_.size(), std::vector<TaskId>(items, kNone));
  // Each CTA's last slice, and each connection's slices in order (send, item).
  std::map<std::pair<int, int>, TaskId> cta_last;
  std::map<std::tuple<int, int, int>, std::vector<std::pair<int, std::size_t>>> connection;
  if (loop_arrivals) loop_arrivals->assign(static_cast<std::size_t>(loop_count), {});
  std::vector<TaskId> deps;
  for (int loop = 0; loop < loop_count; ++loop) {
    for (std::size_t si = 0; si < sends_.size(); ++si) {
      const Send& s = sends_[si];
      const double slice_payload = s.payload_bytes * loop_share / q_count;
      const double sync_s =
          slice_sync_s(l.choice().protocol, l.link_class(s.from, s.to)) * sync_scale;
      const double hop_s = l.hop_s_between(s.from, s.to);
      auto& seq = connection[{s.from, s.to, s.stream}];
      for (int q = 0; q < q_count; ++q) {
        const std::size_t item = static_cast<std::size_t>(loop) * q_count + q;
        deps.clear();
        auto cta = cta_last.find({s.from, s.stream});
        deps.push_back(cta == cta_last.end() ? start : cta->second);
        for (int a : s.after)
          deps.push_back(arrive[static_cast<std::size_t>(a)][item]);
        if (seq.size() >= static_cast<std::size_t>(shape_.window_slices)) {
          const auto [a, ai] = seq[seq.size() - static_cast<std::size_t>(shape_.window_slices)];
          const Send& sent = sends_[static_cast<std::size_t>(a)];
          const TaskId freed = sent.consumer >= 0
                                   ? done[static_cast<std::size_t>(sent.consumer)][ai]
                                   : arrive[static_cast<std::size_t>(a)][ai];
          if (freed == kNone) throw std::logic_error("a slot is freed by a slice not yet emitted");
          deps.push_back(freed);
        }
        const TaskId moved = l.send_slice(s.from, s.to, slice_payload, deps);
        const TaskId synced = sync_s > 0 ? sim.add_delay(sync_s, {&moved, 1}) : moved;
        const TaskId arrived = hop_s > 0 ? sim.add_delay(hop_s, {&synced, 1}) : synced;
        done[si][item] = synced;
        arrive[si][item] = arrived;
        cta_last[{s.from, s.stream}] = synced;
        seq.emplace_back(static_cast<int>(si), item);
        if (loop_arrivals) (*loop_arrivals)[static_cast<std::size_t>(loop)].push_back(arrived);
      }
    }
  }
  std::vector<TaskId> ends;
  ends.reserve(sends_.size());
  for (const auto& a : arrive)
    if (!a.empty()) ends.push_back(a.back());
  if (ends.empty()) return start;
  return sim.add_barrier(ends);
}

}  // namespace linksim::coll
