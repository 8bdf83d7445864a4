#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "sim/core/units.hpp"
#include "sim/report/formats.hpp"

namespace linksim::report {
namespace {

std::string quoted(const std::string& s) {
  return nlohmann::json(s).dump();
}
std::string num(double v) {
  return units::exact(v);
}

}  // namespace

// Written by hand rather than through a JSON library so that number formatting is ours.
std::string to_json(const engine::Summary& s) {
  std::string out = "{\n";
  out += fmt::format("  \"makespan_s\": {},\n", num(s.makespan_s));

  out += "  \"tasks\": [";
  for (std::size_t i = 0; i < s.tasks.size(); ++i) {
    const engine::TaskRow& t = s.tasks[i];
    out += fmt::format("{}\n    {{\"id\": {}, \"kind\": \"{}\", \"start_s\": {}, \"end_s\": {}}}",
                       i ? "," : "", quoted(t.name), engine::to_string(t.kind), num(t.start_s),
                       num(t.end_s));
  }
  out += s.tasks.empty() ? "],\n" : "\n  ],\n";

  out += "  \"gpus\": [";
  for (std::size_t i = 0; i < s.gpus.size(); ++i) {
    const engine::GpuRow& g = s.gpus[i];
    out += fmt::format(
        "{}\n    {{\"gpu\": {}, \"compute_s\": {}, \"comm_s\": {}, \"exposed_comm_s\": {}, "
        "\"hidden_comm_s\": {}, \"idle_s\": {}, \"busy_s\": {}, \"comm_fraction\": {}}}",
        i ? "," : "", quoted(g.name), num(g.compute_s), num(g.comm_s), num(g.exposed_comm_s),
        num(g.hidden_comm_s), num(g.idle_s), num(g.busy_s), num(g.comm_fraction));
  }
  out += s.gpus.empty() ? "],\n" : "\n  ],\n";

  out += "  \"channels\": [";
  for (std::size_t i = 0; i < s.channels.size(); ++i) {
    const engine::ChannelRow& c = s.channels[i];
    out += fmt::format(
        "{}\n    {{\"channel\": {}, \"name\": {}, \"capacity_Bps\": {}, \"bytes\": {}, "
        "\"busy_s\": {}, \"saturated_s\": {}, \"utilization\": {}}}",
        i ? "," : "", c.channel, quoted(c.name), num(c.capacity_Bps), num(c.bytes), num(c.busy_s),
        num(c.saturated_s), num(c.utilization));
  }
  out += s.channels.empty() ? "],\n" : "\n  ],\n";

  out += "  \"bottlenecks\": [";
  for (std::size_t i = 0; i < s.bottlenecks.size(); ++i) {
    const engine::ChannelRow& c = s.channels[s.bottlenecks[i]];
    out += fmt::format("{}\n    {{\"channel\": {}, \"name\": {}, \"saturated_s\": {}}}",
                       i ? "," : "", c.channel, quoted(c.name), num(c.saturated_s));
  }
  out += s.bottlenecks.empty() ? "]\n" : "\n  ]\n";
  out += "}\n";
  return out;
}

}  // namespace linksim::report
