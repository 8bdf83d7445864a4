#include "sim/report/chrome_trace.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <queue>
#include <set>
#include <utility>
#include <vector>

#include "sim/core/units.hpp"
#include "sim/report/chrome_trace_flows.hpp"
#include "sim/report/chrome_trace_link_load.hpp"

namespace linksim::report {
namespace {

std::string quoted(const std::string& s) {
  return nlohmann::json(s).dump();
}
std::string us(double seconds) {
  return units::exact(seconds * 1e6);
}

// A slice's or counter's "args" object, built field by field in the order given.
class Args {
 public:
  Args& text(const std::string& key, const std::string& value) {
    add(key, quoted(value));
    return *this;
  }
  // Non-finite numbers are left out: JSON has no spelling for them.
  Args& number(const std::string& key, double value) {
    if (std::isfinite(value)) add(key, units::exact(value));
    return *this;
  }
  Args& label(const engine::TaskLabel& l) {
    for (const auto& [k, v] : l.text)
      text(k, v);
    for (const auto& [k, v] : l.numbers)
      number(k, v);
    return *this;
  }
  std::string json() const { return "{" + body_ + "}"; }

 private:
  void add(const std::string& key, const std::string& value) {
    if (!body_.empty()) body_ += ", ";
    body_ += quoted(key) + ": " + value;
  }
  std::string body_;
};

class TraceWriter {
 public:
  void meta(const char* what, int pid, int tid, const std::string& name) {
    add(fmt::format(R"({{"ph": "M", "name": "{}", "pid": {}, "tid": {}, "args": {{"name": {}}}}})",
                    what, pid, tid, quoted(name)));
  }
  void sort_index(int pid, std::size_t index) {
    add(fmt::format(
        R"({{"ph": "M", "name": "process_sort_index", "pid": {}, "tid": 0, "args": {{"sort_index": {}}}}})",
        pid, index));
  }
  void slice(int pid, int tid, const std::string& name, const char* category, double start_s,
             double end_s, const Args& args) {
    add(fmt::format(
        R"({{"ph": "X", "name": {}, "cat": "{}", "pid": {}, "tid": {}, "ts": {}, "dur": {}, "args": {}}})",
        quoted(name), category, pid, tid, us(start_s), us(end_s - start_s), args.json()));
  }
  void counter(int pid, int tid, const std::string& name, double time_s, const Args& args) {
    add(fmt::format(R"({{"ph": "C", "name": {}, "pid": {}, "tid": {}, "ts": {}, "args": {}}})",
                    quoted(name), pid, tid, us(time_s), args.json()));
  }
  // A flow arrow's two ends (ph "s" and "f"), each bound to the slice enclosing its time on
  // its thread ("bp": "e").
  void flow(std::uint64_t id, const char* phase, int pid, int tid, double time_s) {
    add(fmt::format(
        R"({{"ph": "{}", "id": {}, "name": "depends", "cat": "dependency", "bp": "e", "pid": {}, "tid": {}, "ts": {}}})",
        phase, id, pid, tid, us(time_s)));
  }
  std::string finish() {
    return "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n" + body_ + "\n]}\n";
  }

 private:
  void add(const std::string& event) {
    if (!body_.empty()) body_ += ",\n";
    body_ += event;
  }
  std::string body_;
};

// Puts intervals (sorted by start) on the first lane free at their start (the lowest-numbered
// lane whose last interval ended by then); returns lane count. Starts only grow, so a lane that
// is free stays free until it is given out: busy lanes wait in a heap by end, free ones in an
// ordered set, and a million overlapping transfers cost n log n, not n x lanes.
template <typename Interval>
std::vector<int> assign_lanes(const std::vector<Interval>& v, int& lanes) {
  using Busy = std::pair<double, int>;  // (end, lane)
  std::priority_queue<Busy, std::vector<Busy>, std::greater<>> busy;
  std::set<int> free_lanes;
  std::vector<int> lane(v.size());
  lanes = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    while (!busy.empty() && busy.top().first <= v[i].start_s) {
      free_lanes.insert(busy.top().second);
      busy.pop();
    }
    int l = lanes;
    if (free_lanes.empty()) {
      ++lanes;
    } else {
      l = *free_lanes.begin();
      free_lanes.erase(free_lanes.begin());
    }
    busy.emplace(v[i].end_s, l);
    lane[i] = l;
  }
  return lane;
}

// Thread ids on a GPU's process: compute lanes from 0, communication lanes from kCommTid,
// operation lanes from kOpTid.
constexpr int kCommTid = 1000;
constexpr int kOpTid = 2000;

// Where a task's slice sits on its home GPU (chrome_trace_flows.hpp), for its flow arrows.
struct Place {
  int pid = -1;
  int tid = -1;
};

// One machine's run into the writer, from pid `first_pid` on (processes sorted from
// `first_sort`); returns the next free pid.
class RunWriter {
 public:
  RunWriter(TraceWriter& w, const TraceRun& run, std::uint64_t& flow_ids)
      : w_(w),
        sim_(*run.simulation),
        tl_(*run.timeline),
        names_(*run.names),
        prefix_(run.machine.empty() ? "" : run.machine + ": "),
        load_(sim_, tl_),
        flow_ids_(flow_ids),
        has_times_(tl_.task_start_s.size() == sim_.task_count() &&
                   tl_.task_end_s.size() == sim_.task_count()) {}

  int write(int first_pid, std::size_t& sort) {
    place_.assign(has_times_ ? sim_.task_count() : 0, Place{});
    op_spans();
    for (std::size_t g = 0; g < sim_.gpu_count(); ++g)
      gpu(static_cast<int>(g), first_pid + static_cast<int>(g), sort++);
    const int links_pid = first_pid + static_cast<int>(sim_.gpu_count());
    links(links_pid, sort++);
    flows();
    return links_pid + 1;
  }

 private:
  const engine::TaskLabel* label_of(engine::TaskId t) const {
    if (t >= names_.task_labels.size() || names_.task_labels[t] == engine::Names::kNoLabel) {
      return nullptr;
    }
    return &names_.labels.at(names_.task_labels[t]);
  }
  std::string task_name(engine::TaskId t) const {
    if (const auto* l = label_of(t)) return l->name;
    if (t < names_.tasks.size()) return names_.tasks[t];
    return fmt::format("{} #{}", engine::to_string(sim_.kind(t)), t);
  }
  std::string gpu_name(int g) const {
    return g == engine::kNoGpu ? "host" : names_.gpus.at(static_cast<std::size_t>(g));
  }
  std::vector<engine::ChannelId> channels_of(engine::TaskId t) const {
    std::vector<engine::ChannelId> out;
    for (const engine::PathShare& p : sim_.paths(t)) {
      const auto cs = sim_.path_channels(p.path);
      out.insert(out.end(), cs.begin(), cs.end());
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }
  // The link that bound work over [start_s, end_s] on `channels`, as args prefixed `key`.
  void bounding_args(Args& a, const std::string& key,
                     const std::vector<engine::ChannelId>& channels, double start_s,
                     double end_s) const {
    const auto b = load_.bounding(channels, start_s, end_s);
    if (!b) return;
    const double span_s = end_s - start_s;
    const double cap = load_.capacity_Bps(b->channel);
    a.text(key, names_.channels.at(b->channel));
    a.text(key + "_capacity", units::format_bandwidth(cap));
    if (span_s > 0) {
      a.number(key + "_saturated_pct", 100 * b->window.saturated_s / span_s);
      a.number(key + "_mean_pct", 100 * b->window.bytes / (cap * span_s));
    }
  }
  void rate_args(Args& a, const std::string& key, double bytes, double span_s) const {
    if (span_s <= 0) return;
    a.text(key, units::format_bandwidth(bytes / span_s));
    a.number(key + "_Bps", bytes / span_s);
  }

  void compute_slice(int pid, int tid, const engine::TaskInterval& iv) {
    Args a;
    if (const auto* l = label_of(iv.task)) a.label(*l);
    a.number("task", iv.task);
    a.text("duration", units::format_time(iv.end_s - iv.start_s));
    w_.slice(pid, tid, task_name(iv.task), "compute", iv.start_s, iv.end_s, a);
  }
  void comm_slice(int pid, int tid, const engine::TaskInterval& iv) {
    const engine::TaskId t = iv.task;
    const double bytes = sim_.amount(t);
    Args a;
    if (const auto* l = label_of(t)) a.label(*l);
    a.number("task", t);
    a.text("from", gpu_name(sim_.gpu(t)));
    a.text("to", gpu_name(sim_.peer_gpu(t)));
    a.number("bytes", bytes);
    a.text("bytes_text", units::format_bytes(bytes));
    a.text("duration", units::format_time(iv.end_s - iv.start_s));
    rate_args(a, "rate", bytes, iv.end_s - iv.start_s);
    bounding_args(a, "link", channels_of(t), iv.start_s, iv.end_s);
    w_.slice(pid, tid, task_name(t), "comm", iv.start_s, iv.end_s, a);
  }

  // Each operation's span: from the first of its tasks to start to its last task's end.
  void op_spans() {
    spans_.clear();
    if (!has_times_) return;
    for (const engine::LabelledOp& op : names_.ops) {
      double start = tl_.task_start_s[op.first_task];
      for (engine::TaskId t = op.first_task; t <= op.last_task; ++t)
        start = std::min(start, tl_.task_start_s[t]);
      spans_.push_back({start, tl_.task_end_s[op.last_task], 0});
    }
    op_args_.assign(spans_.size(), std::nullopt);
  }
  // An operation's args, the same on each of its GPUs.
  Args op_args(std::size_t i) const {
    const engine::LabelledOp& op = names_.ops[i];
    const engine::TaskInterval& span = spans_[i];
    const engine::TaskLabel& l = names_.labels.at(op.label);
    Args a;
    a.label(l);
    a.text("duration", units::format_time(span.end_s - span.start_s));
    std::vector<engine::ChannelId> channels;
    double bytes = 0;
    for (engine::TaskId t = op.first_task; t <= op.last_task; ++t) {
      if (sim_.kind(t) != engine::TaskKind::transfer) continue;
      bytes += sim_.amount(t);
      const auto cs = channels_of(t);
      channels.insert(channels.end(), cs.begin(), cs.end());
    }
    std::sort(channels.begin(), channels.end());
    channels.erase(std::unique(channels.begin(), channels.end()), channels.end());
    for (const auto& [k, v] : l.numbers) {  // algorithm bandwidth: the buffer over the time
      if (k == "size_bytes") rate_args(a, "algbw", v, span.end_s - span.start_s);
    }
    a.number("transfers_bytes", bytes);
    bounding_args(a, "bottleneck_link", channels, span.start_s, span.end_s);
    return a;
  }
  void op_slice(int pid, int tid, std::size_t i) {
    if (!op_args_[i]) op_args_[i] = op_args(i);
    w_.slice(pid, tid, names_.labels.at(names_.ops[i].label).name, "operation", spans_[i].start_s,
             spans_[i].end_s, *op_args_[i]);
  }

  void gpu(int g, int pid, std::size_t sort) {
    const auto gi = static_cast<std::size_t>(g);
    w_.meta("process_name", pid, 0, prefix_ + names_.gpus.at(gi));
    w_.sort_index(pid, sort);
    int lanes = 0;
    const auto compute_lane = assign_lanes(tl_.gpu_compute.at(gi), lanes);
    for (int l = 0; l < lanes; ++l) {
      w_.meta("thread_name", pid, l, l == 0 ? "compute" : fmt::format("compute {}", l + 1));
    }
    const int comm_tid = std::max(kCommTid, lanes);
    for (std::size_t i = 0; i < compute_lane.size(); ++i) {
      const auto& iv = tl_.gpu_compute[gi][i];
      compute_slice(pid, compute_lane[i], iv);
      if (has_times_) place_[iv.task] = {pid, compute_lane[i]};
    }
    const auto comm_lane = assign_lanes(tl_.gpu_comm.at(gi), lanes);
    for (int l = 0; l < lanes; ++l) {
      w_.meta("thread_name", pid, comm_tid + l, l == 0 ? "comm" : fmt::format("comm {}", l + 1));
    }
    const int op_tid = std::max(kOpTid, comm_tid + lanes);
    for (std::size_t i = 0; i < comm_lane.size(); ++i) {
      const auto& iv = tl_.gpu_comm[gi][i];
      comm_slice(pid, comm_tid + comm_lane[i], iv);
      if (has_times_ && home_gpu(sim_, iv.task) == g)
        place_[iv.task] = {pid, comm_tid + comm_lane[i]};
    }
    // The operations this GPU takes part in, by start.
    std::vector<engine::TaskInterval> mine;
    for (std::size_t i = 0; i < spans_.size(); ++i) {
      const auto& gpus = names_.ops[i].gpus;
      if (std::find(gpus.begin(), gpus.end(), g) == gpus.end()) continue;
      mine.push_back({spans_[i].start_s, spans_[i].end_s, static_cast<engine::TaskId>(i)});
    }
    std::stable_sort(mine.begin(), mine.end(),
                     [](const auto& a, const auto& b) { return a.start_s < b.start_s; });
    const auto op_lane = assign_lanes(mine, lanes);
    for (int l = 0; l < lanes; ++l) {
      w_.meta("thread_name", pid, op_tid + l,
              l == 0 ? "operations" : fmt::format("operations {}", l + 1));
    }
    for (std::size_t i = 0; i < mine.size(); ++i)
      op_slice(pid, op_tid + op_lane[i], mine[i].task);
  }

  void links(int pid, std::size_t sort) {
    bool any = false;
    for (engine::ChannelId c = 0; c < sim_.channel_count(); ++c) {
      const engine::ChannelUsage& u = tl_.channels.at(c);
      if (u.busy.empty() && u.load.empty()) continue;
      if (!any) {
        w_.meta("process_name", pid, 0, prefix_ + "links");
        w_.sort_index(pid, sort);
      }
      any = true;
      const int tid = static_cast<int>(c);
      const double cap = sim_.channel_capacity_Bps(c);
      w_.meta("thread_name", pid, tid, names_.channels.at(c));
      for (const auto& iv : u.busy) {
        Args a;
        a.text("capacity", units::format_bandwidth(cap));
        if (!u.load.empty()) {
          const ChannelWindow win = load_.window(c, iv.start_s, iv.end_s);
          a.number("bytes", win.bytes);
          if (iv.end_s > iv.start_s) {
            a.number("mean_pct", 100 * win.bytes / (cap * (iv.end_s - iv.start_s)));
          }
          a.number("peak_pct", 100 * win.peak_Bps / cap);
        }
        w_.slice(pid, tid, "busy", "link", iv.start_s, iv.end_s, a);
      }
      // Percent of capacity in use, from each change on (the samples hold only changes).
      for (const engine::LoadSample& s : u.load) {
        w_.counter(pid, tid, names_.channels.at(c), s.time_s,
                   Args().number("utilisation %", 100 * s.load_Bps / cap));
      }
    }
  }

  // Each end bound at its slice's start (the enclosing slice there is the task's own).
  void flows() {
    if (!has_times_) return;
    for (const auto& [from, to] : cross_gpu_dependencies(sim_, tl_)) {
      const Place& a = place_[from];
      const Place& b = place_[to];
      if (a.pid < 0 || b.pid < 0) continue;
      const std::uint64_t id = ++flow_ids_;
      w_.flow(id, "s", a.pid, a.tid, tl_.task_start_s[from]);
      w_.flow(id, "f", b.pid, b.tid, tl_.task_start_s[to]);
    }
  }

  TraceWriter& w_;
  const engine::Simulation& sim_;
  const engine::Timeline& tl_;
  const engine::Names& names_;
  const std::string prefix_;
  const LinkLoad load_;
  std::uint64_t& flow_ids_;
  const bool has_times_;
  std::vector<Place> place_;                  // by task id
  std::vector<engine::TaskInterval> spans_;   // by index into names_.ops
  std::vector<std::optional<Args>> op_args_;  // by index into names_.ops, made on first use
};

}  // namespace

std::string to_chrome_trace(std::span<const TraceRun> runs) {
  TraceWriter w;
  std::uint64_t flow_ids = 0;
  std::size_t sort = 0;
  int pid = 1;
  for (const TraceRun& run : runs)
    pid = RunWriter(w, run, flow_ids).write(pid, sort);
  return w.finish();
}

std::string to_chrome_trace(const engine::Simulation& sim, const engine::Timeline& timeline,
                            const engine::Names& names) {
  const TraceRun run{"", &sim, &timeline, &names};
  return to_chrome_trace(std::span<const TraceRun>(&run, 1));
}

}  // namespace linksim::report
