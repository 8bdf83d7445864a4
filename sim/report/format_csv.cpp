#include <fmt/format.h>

#include "sim/core/csv.hpp"
#include "sim/core/units.hpp"
#include "sim/report/formats.hpp"

namespace linksim::report {
namespace {

// RFC 4180 quoting (core's csv_field).
std::string field(const std::string& s) {
  return csv_field(s);
}

void row(std::string& out, const char* section, const std::string& name, const char* key,
         const std::string& value) {
  out += fmt::format("{},{},{},{}\n", section, field(name), key, value);
}
void row(std::string& out, const char* section, const std::string& name, const char* key,
         double value) {
  row(out, section, name, key, units::exact(value));
}

}  // namespace

std::string to_csv(const engine::Summary& s) {
  std::string out = "section,name,field,value\n";
  row(out, "run", "", "makespan_s", s.makespan_s);
  for (const engine::TaskRow& t : s.tasks) {
    row(out, "task", t.name, "kind", std::string(engine::to_string(t.kind)));
    row(out, "task", t.name, "start_s", t.start_s);
    row(out, "task", t.name, "end_s", t.end_s);
  }
  for (const engine::GpuRow& g : s.gpus) {
    row(out, "gpu", g.name, "compute_s", g.compute_s);
    row(out, "gpu", g.name, "comm_s", g.comm_s);
    row(out, "gpu", g.name, "exposed_comm_s", g.exposed_comm_s);
    row(out, "gpu", g.name, "hidden_comm_s", g.hidden_comm_s);
    row(out, "gpu", g.name, "idle_s", g.idle_s);
    row(out, "gpu", g.name, "busy_s", g.busy_s);
    row(out, "gpu", g.name, "comm_fraction", g.comm_fraction);
  }
  for (const engine::ChannelRow& c : s.channels) {
    row(out, "channel", c.name, "capacity_Bps", c.capacity_Bps);
    row(out, "channel", c.name, "bytes", c.bytes);
    row(out, "channel", c.name, "busy_s", c.busy_s);
    row(out, "channel", c.name, "saturated_s", c.saturated_s);
    row(out, "channel", c.name, "utilization", c.utilization);
  }
  for (std::size_t rank = 0; rank < s.bottlenecks.size(); ++rank) {
    row(out, "bottleneck", s.channels[s.bottlenecks[rank]].name, "rank",
        static_cast<double>(rank + 1));
  }
  return out;
}

}  // namespace linksim::report
