#include "sim/app/machine_views.hpp"

#include <fmt/format.h>

#include <vector>

#include "sim/report/machine_data.hpp"
#include "sim/topo/describe.hpp"
#include "sim/topo/fabric_summary.hpp"
#include "sim/topo/loader.hpp"
#include "sim/topo/routing.hpp"
#include "sim/topo/smi_matrix.hpp"
#include "sim/topo/smi_matrix_format.hpp"
#include "sim/topo/summary.hpp"

namespace linksim::app {

std::string smi_view(const topo::Topology& machine, ViewFormat format, bool summary) {
  const topo::Topology& host = machine.is_cluster() ? *machine.cluster->host : machine;
  const topo::Router router(host);
  const topo::SmiMatrix matrix = topo::smi_matrix(host, router);
  if (format == ViewFormat::json) return topo::smi_matrix_json(matrix);
  if (format == ViewFormat::csv) return topo::smi_matrix_csv(matrix);
  std::string out = topo::format_smi_matrix(matrix);
  if (summary) {
    out += "\n" + topo::describe_summary(host, topo::summarize(host, router));
    if (machine.is_cluster()) {
      out += "\n" + topo::describe_fabric(machine, topo::summarize_fabric(machine));
    }
  }
  return out;
}

std::string machine_check(const topo::Topology& machine, ViewFormat format) {
  if (format == ViewFormat::json) return report::machine_check_json(machine);
  if (format == ViewFormat::csv) return report::machine_check_csv(machine);
  const topo::Topology& host = machine.is_cluster() ? *machine.cluster->host : machine;
  const topo::Router router(host);
  std::string out = topo::explain_machine(host, topo::summarize(host, router));
  if (machine.is_cluster()) {
    out += "\n" + topo::describe_fabric(machine, topo::summarize_fabric(machine));
  }
  return out;
}

std::string shipped_machines_list(ViewFormat format) {
  if (format != ViewFormat::table) {
    std::vector<topo::Topology> machines;
    for (const auto& f : topo::shipped_topology_files())
      machines.push_back(topo::load_topology(f));
    return format == ViewFormat::json ? report::machines_list_json(machines)
                                      : report::machines_list_csv(machines);
  }
  std::string out =
      fmt::format("{:<28} {:<28} {:<19} {}\n", "name", "GPUs", "price (as of)", "title");
  for (const auto& f : topo::shipped_topology_files())
    out += topo::one_line(topo::load_topology(f)) + "\n";
  return out;
}

}  // namespace linksim::app
