#include "sim/coll/slice_pipeline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
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

std::optional<SteadyCycle> steady_cycle(std::span<const double> loop_end_s, int min_run_loops,
                                        int max_cycle_loops) {
  // Durations equal to a millionth: far above the rounding of summed task times, far below any
  // difference the printout shows.
  constexpr double kSame = 1e-6;
  for (int cycle = 1; cycle <= max_cycle_loops; ++cycle) {
    const auto c = static_cast<std::size_t>(cycle);
    std::optional<double> best;
    int best_run = 0;
    int run = 0;
    for (std::size_t k = c; k < loop_end_s.size(); ++k) {
      const double duration = loop_end_s[k] - loop_end_s[k - c];
      const double before = k > c ? loop_end_s[k - 1] - loop_end_s[k - 1 - c] : -1.0;
      run = (k > c && std::abs(duration - before) <= kSame * std::abs(duration)) ? run + 1 : 1;
      if (run > best_run) {
        best_run = run;
        best = duration;
      }
    }
    // A cycle of L loops must repeat as long as a period of one, plus the cycle itself.
    if (best && *best >= 0 && best_run >= min_run_loops + cycle - 1) {
      return SteadyCycle{cycle, *best};
    }
  }
  return std::nullopt;
}

TaskId emit_with_replay(Lowering& l, TaskId start, int loops, int depth_loops, int window_loops,
                        const LoopEmitter& emit, const std::string& memo_key) {
  const int n = std::max(1, loops);
  // The partial run must hold the fill, a stretch of loops that repeat, and the drain, which
  // reaches back about as far as the fill took. Deep chains whose streams share links (a
  // tree's up and down streams on one NVSwitch port) drain for more than their depth, so the
  // steady period is read off the loops themselves, not at a fixed loop: the period repeated
  // longest is the steady state, and a run with no such stretch doubles its loops.
  // A stream may run up to `window_loops` ahead of the one it feeds, so the drain may reach
  // back depth + window loops from the end, and a change of pace (a stream running out of
  // room, or finishing first) plays out within as many: a period must repeat that long, before
  // that tail, to count as steady.
  const int settle = depth_loops + window_loops;
  const int min_run = std::max(kMinSteadyLoops, settle);
  const int first_try = std::max(kMinReplayLoops, 3 * settle + kReplayMarginLoops);
  if (l.alone() && l.granularity() == Granularity::slices) {
    // Simulates `partial` loops apart: their time, each loop's end and each channel's time at
    // capacity.
    const auto simulate_partial = [&](int partial) {
      engine::Simulation one(l.comm().capacities_Bps(), l.sim().gpu_count());
      Lowering sub(l, one);
      std::vector<std::vector<TaskId>> arrivals;
      emit(sub, one.add_delay(0, {}), partial, 1.0 / n, 1.0, &arrivals);
      engine::RunOptions options;
      options.record_intervals = false;
      const engine::Timeline t = one.run(options);
      PartialRunResult out{t.makespan_s, std::vector<double>(arrivals.size(), 0.0), {}};
      for (std::size_t k = 0; k < arrivals.size(); ++k)
        for (TaskId id : arrivals[k])
          out.loop_end_s[k] = std::max(out.loop_end_s[k], t.task_end_s[id]);
      for (std::size_t c = 0; c < t.channels.size(); ++c)
        if (t.channels[c].saturated_s > 0)
          out.saturated_s.emplace_back(c, t.channels[c].saturated_s);
      return out;
    };
    const std::string key_prefix =
        memo_key.empty() ? std::string() : l.replay_key() + "|" + memo_key + "|";
    const auto run_partial = [&](int partial) {
      if (key_prefix.empty()) {
        return std::make_shared<const PartialRunResult>(simulate_partial(partial));
      }
      return l.comm().partial_runs().get(key_prefix + std::to_string(partial),
                                         [&] { return simulate_partial(partial); });
    };
    // Stands the whole in by one delay: the partial run's time plus the remaining loops at
    // `per_loop_s`. The partial run's links' load goes to the bottleneck report.
    const auto stand_in = [&](const PartialRunResult& t, int partial, double per_loop_s) {
      l.add_saturation_apart(t.saturated_s, static_cast<double>(n) / partial);
      return l.sim().add_delay(t.makespan_s + (n - partial) * per_loop_s, {&start, 1});
    };
    int previous_loops = 0;  // the previous partial run's loops and time
    double previous_makespan_s = 0;
    for (int partial = first_try; partial < n; partial *= 2) {
      const std::shared_ptr<const PartialRunResult> run = run_partial(partial);
      const PartialRunResult& t = *run;
      const std::vector<double>& loop_end_s = t.loop_end_s;
      const std::size_t tail = std::min(loop_end_s.size(), static_cast<std::size_t>(settle));
      const std::size_t searched = loop_end_s.size() - tail;
      // Loops may repeat one by one, or in cycles of several (a window that lets a sender run
      // a burst of chunks and then wait a round trip).
      const std::optional<SteadyCycle> cycle =
          steady_cycle(std::span<const double>(loop_end_s).first(searched), min_run,
                       std::min(kMaxCycleLoops, static_cast<int>(searched) / 3));
      if (cycle) {
        // Whole cycles are exact; a run shifted by the leftover loops keeps them so.
        const int aligned = partial + (n - partial) % cycle->loops;
        if (aligned == partial) return stand_in(t, partial, cycle->duration_s / cycle->loops);
        if (aligned < n) {
          const auto shifted = run_partial(aligned);
          return stand_in(*shifted, aligned, cycle->duration_s / cycle->loops);
        }
        break;  // as long as the whole: run it whole
      }
      // No period repeats: streams of unequal pace drift apart, and the loops' ends wander
      // around a straight line (fast streams finish first, and the slow ones then speed up, at
      // points that scale with the loop count). Long enough runs lie on that line, so the
      // rest follows from the last two runs' slope.
      if (partial >= kTrendMinTries * first_try && previous_loops > 0) {
        const double loop_s =
            (t.makespan_s - previous_makespan_s) / static_cast<double>(partial - previous_loops);
        if (loop_s > 0) {
          l.note_trend({partial, n});
          return stand_in(t, partial, loop_s);
        }
      }
      previous_loops = partial;
      previous_makespan_s = t.makespan_s;
    }
  }
  if (l.granularity() == Granularity::slices && !l.alone() && n > kMaxJobLoops) {
    const int merged = (n + kMaxJobLoops - 1) / kMaxJobLoops;
    const int count = (n + merged - 1) / merged;
    return emit(l, start, count, 1.0 / count, static_cast<double>(n) / count, nullptr);
  }
  return emit(l, start, n, 1.0 / n, 1.0, nullptr);
}

int SlicePipeline::busiest_cta_sends() const {
  std::map<std::pair<int, int>, int> per_cta;
  int busiest = 1;
  for (const Send& s : sends_)
    busiest = std::max(busiest, ++per_cta[{s.from, s.stream}]);
  return busiest;
}

int SlicePipeline::depth_loops() const {
  // A slice crosses the longest chain of sends; a CTA runs its sends of one loop back to back,
  // so a chain as long as a CTA's sends per loop (a ring's steps) fills within one loop.
  std::vector<int> depth(sends_.size(), 1);
  int most = 0;
  for (std::size_t i = 0; i < sends_.size(); ++i) {
    for (int a : sends_[i].after)
      depth[i] = std::max(depth[i], depth[static_cast<std::size_t>(a)] + 1);
    most = std::max(most, depth[i]);
  }
  const int busiest = busiest_cta_sends();
  return (most + busiest - 1) / busiest;
}

TaskId SlicePipeline::emit(Lowering& l, TaskId start) const {
  const int per_loop = busiest_cta_sends() * shape_.slices;
  const int window_loops = (shape_.window_slices + per_loop - 1) / per_loop;
  return emit_with_replay(
      l, start, loops(), depth_loops(), window_loops,
      [this](Lowering& lw, TaskId s, int count, double share, double scale,
             std::vector<std::vector<TaskId>>* arrivals) {
        return emit_loops(lw, s, count, share, scale, arrivals);
      },
      memo_key(1.0 / std::max(1, loops())));
}

std::string SlicePipeline::memo_key(double loop_share) const {
  // Each send's bytes per loop as emit_loops computes them (payload × share), in hexadecimal:
  // exact, so sizes whose loops carry the same bytes share their partial runs.
  std::string key = fmt::format("{}|{}|{}|{}", shape_.slices, shape_.window_slices,
                                channels_per_stream_, overlap_link_latency_ ? 1 : 0);
  for (const Send& s : sends_) {
    fmt::format_to(std::back_inserter(key), ";{},{},{},{:a},{}", s.from, s.to, s.stream,
                   s.payload_bytes * loop_share, s.consumer);
    for (int a : s.after)
      fmt::format_to(std::back_inserter(key), ",{}", a);
  }
  return key;
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
      const double hop_s = l.hop_s_between(s.from, s.to) +
                           (overlap_link_latency_ ? l.route_latency_s(s.from, s.to) : 0.0);
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
        const TaskId moved = overlap_link_latency_
                                 ? l.send_streaming(s.from, s.to, slice_payload, deps)
                                 : l.send_slice(s.from, s.to, slice_payload, deps);
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
