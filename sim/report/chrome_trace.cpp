#include "sim/report/chrome_trace.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "sim/core/units.hpp"

namespace linksim::report {
namespace {

std::string quoted(const std::string& s) {
  return nlohmann::json(s).dump();
}
std::string us(double seconds) {
  return units::exact(seconds * 1e6);
}

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
             double end_s) {
    add(fmt::format(
        R"({{"ph": "X", "name": {}, "cat": "{}", "pid": {}, "tid": {}, "ts": {}, "dur": {}}})",
        quoted(name), category, pid, tid, us(start_s), us(end_s - start_s)));
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

// Puts intervals (sorted by start) on the first lane free at their start; returns lane count.
std::vector<int> assign_lanes(const std::vector<engine::TaskInterval>& v, int& lanes) {
  std::vector<double> lane_end;
  std::vector<int> lane(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    std::size_t l = 0;
    while (l < lane_end.size() && lane_end[l] > v[i].start_s)
      ++l;
    if (l == lane_end.size()) lane_end.push_back(0);
    lane_end[l] = v[i].end_s;
    lane[i] = static_cast<int>(l);
  }
  lanes = static_cast<int>(lane_end.size());
  return lane;
}

}  // namespace

std::string to_chrome_trace(const engine::Simulation& sim, const engine::Timeline& tl,
                            const engine::Names& names) {
  TraceWriter w;
  // Thread ids: compute lanes from 0, communication lanes from kCommTid.
  constexpr int kCommTid = 1000;
  for (std::size_t g = 0; g < sim.gpu_count(); ++g) {
    const int pid = static_cast<int>(g) + 1;
    w.meta("process_name", pid, 0, names.gpus.at(g));
    w.sort_index(pid, g);
    int lanes = 0;
    const auto compute_lane = assign_lanes(tl.gpu_compute.at(g), lanes);
    for (int l = 0; l < lanes; ++l) {
      w.meta("thread_name", pid, l, l == 0 ? "compute" : fmt::format("compute {}", l + 1));
    }
    for (std::size_t i = 0; i < compute_lane.size(); ++i) {
      const auto& iv = tl.gpu_compute[g][i];
      w.slice(pid, compute_lane[i], names.tasks.at(iv.task), "compute", iv.start_s, iv.end_s);
    }
    const auto comm_lane = assign_lanes(tl.gpu_comm.at(g), lanes);
    for (int l = 0; l < lanes; ++l) {
      w.meta("thread_name", pid, kCommTid + l, l == 0 ? "comm" : fmt::format("comm {}", l + 1));
    }
    for (std::size_t i = 0; i < comm_lane.size(); ++i) {
      const auto& iv = tl.gpu_comm[g][i];
      w.slice(pid, kCommTid + comm_lane[i], names.tasks.at(iv.task), "comm", iv.start_s, iv.end_s);
    }
  }
  const int links_pid = static_cast<int>(sim.gpu_count()) + 1;
  bool any_link = false;
  for (engine::ChannelId c = 0; c < sim.channel_count(); ++c) {
    const engine::ChannelUsage& u = tl.channels.at(c);
    if (u.busy.empty()) continue;
    if (!any_link) w.meta("process_name", links_pid, 0, "links");
    any_link = true;
    const int tid = static_cast<int>(c);
    w.meta("thread_name", links_pid, tid, names.channels.at(c));
    for (const auto& iv : u.busy)
      w.slice(links_pid, tid, "busy", "link", iv.start_s, iv.end_s);
  }
  return w.finish();
}

}  // namespace linksim::report
