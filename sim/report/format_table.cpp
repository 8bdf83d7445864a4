#include <fmt/format.h>

#include <algorithm>

#include "sim/core/units.hpp"
#include "sim/report/formats.hpp"

namespace linksim::report {
namespace {

std::string percent(double fraction) {
  return fmt::format("{:.1f}%", 100.0 * fraction);
}

// Left-aligned first column, right-aligned others, widths fitted to the content.
std::string render(const std::vector<std::string>& header,
                   const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> width(header.size());
  for (std::size_t i = 0; i < header.size(); ++i)
    width[i] = header[i].size();
  for (const auto& r : rows) {
    for (std::size_t i = 0; i < r.size(); ++i)
      width[i] = std::max(width[i], r[i].size());
  }
  std::string out;
  const auto line = [&](const std::vector<std::string>& cells) {
    std::string l;
    for (std::size_t i = 0; i < cells.size(); ++i) {
      if (i == 0) {
        l += fmt::format("{:<{}}", cells[i], width[i]);
      } else {
        l += fmt::format("  {:>{}}", cells[i], width[i]);
      }
    }
    while (!l.empty() && l.back() == ' ')
      l.pop_back();
    out += l + "\n";
  };
  line(header);
  std::vector<std::string> rule;
  for (std::size_t w : width)
    rule.push_back(std::string(w, '-'));
  line(rule);
  for (const auto& r : rows)
    line(r);
  return out;
}

}  // namespace

std::string to_table(const engine::Summary& s) {
  std::string out = fmt::format("makespan: {}\n\n", units::format_time(s.makespan_s));

  std::vector<std::vector<std::string>> rows;
  for (const engine::TaskRow& t : s.tasks) {
    rows.push_back({t.name, std::string(engine::to_string(t.kind)), units::format_time(t.start_s),
                    units::format_time(t.end_s), units::format_time(t.end_s - t.start_s)});
  }
  // A report may leave the task list out (a graph of a million tasks): then no section.
  if (!s.tasks.empty()) {
    out += "tasks\n" + render({"task", "kind", "start", "end", "duration"}, rows) + "\n";
  }

  rows.clear();
  for (const engine::GpuRow& g : s.gpus) {
    rows.push_back({g.name, units::format_time(g.compute_s), units::format_time(g.comm_s),
                    units::format_time(g.exposed_comm_s), units::format_time(g.hidden_comm_s),
                    units::format_time(g.idle_s), percent(g.comm_fraction)});
  }
  out += "gpus\n" +
         render({"gpu", "compute", "comm", "exposed comm", "hidden comm", "idle", "comm/makespan"},
                rows) +
         "\n";

  rows.clear();
  for (const engine::ChannelRow& c : s.channels) {
    rows.push_back({c.name, units::format_bandwidth(c.capacity_Bps), units::format_bytes(c.bytes),
                    units::format_time(c.busy_s), units::format_time(c.saturated_s),
                    percent(c.utilization)});
  }
  out += "links\n" +
         render({"channel", "capacity", "bytes", "busy", "saturated", "utilization"}, rows);

  if (!s.bottlenecks.empty()) {
    out += "\nbottlenecks (saturated longest)\n";
    for (std::size_t i : s.bottlenecks) {
      const engine::ChannelRow& c = s.channels[i];
      out += fmt::format("  {}: saturated {} ({} of the run)\n", c.name,
                         units::format_time(c.saturated_s),
                         percent(s.makespan_s > 0 ? c.saturated_s / s.makespan_s : 0));
    }
  }
  return out;
}

}  // namespace linksim::report
