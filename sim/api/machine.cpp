// linksim::load_machine and linksim::shipped_machines (include/linksim/machine.hpp): sim/app's
// machine and its views, copied into the package's plain types.
#include "sim/app/machine.hpp"

#include <linksim/machine.hpp>

#include "sim/api/option_checks.hpp"
#include "sim/app/machine_views.hpp"
#include "sim/topo/cluster_builder.hpp"
#include "sim/topo/link_kind.hpp"
#include "sim/topo/topology.hpp"

namespace linksim {
namespace {

MachineDevice device_of(const topo::Node& node) {
  MachineDevice d;
  d.id = node.id;
  d.kind = std::string(topo::to_string(node.kind));
  d.ordinal = node.ordinal;
  d.model = node.model;
  d.host = node.host;
  if (node.gpu) {
    d.memory_bytes = node.gpu->memory_bytes;
    d.hbm_bandwidth_Bps = node.gpu->hbm_bandwidth_Bps;
    d.architecture = node.gpu->architecture;
    d.sm_count = node.gpu->sm_count;
  }
  return d;
}

MachineLink link_of(const topo::Topology& machine, const topo::Link& link) {
  MachineLink l;
  l.a = machine.node(link.a).id;
  l.b = machine.node(link.b).id;
  l.kind = std::string(topo::to_string(link.kind));
  l.label = topo::link_label(link.kind, link.generation, link.lanes, link.width);
  l.bandwidth_Bps = link.bandwidth_Bps;
  l.latency_s = link.latency_s;
  return l;
}

}  // namespace

Machine load_machine(const LoadMachineOptions& options) {
  api::check_given("LoadMachineOptions::name_or_path", options.name_or_path, "dgx-a100");
  api::check_count("LoadMachineOptions::nodes", options.nodes, 0, "as the file says", 1,
                   topo::kMaxClusterHosts);
  const topo::Topology t = app::load_machine(options.name_or_path, options.nodes);
  Machine m;
  m.name = t.name;
  m.title = t.title;
  m.description = t.description;
  m.file = t.file;
  m.hosts = t.host_count;
  m.is_cluster = t.is_cluster();
  m.devices.reserve(t.nodes().size());
  for (const auto& node : t.nodes())
    m.devices.push_back(device_of(node));
  m.links.reserve(t.links().size());
  for (const auto& link : t.links())
    m.links.push_back(link_of(t, link));
  m.smi_view = app::smi_view(t, app::ViewFormat::table, /*summary=*/true);
  m.check = app::machine_check(t, app::ViewFormat::table);
  return m;
}

std::string shipped_machines() {
  return app::shipped_machines_list(app::ViewFormat::table);
}

}  // namespace linksim
