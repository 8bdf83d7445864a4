#include "sim/app/machine.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "sim/topo/cluster_loader.hpp"
#include "sim/topo/loader.hpp"

namespace linksim::app {

topo::Topology load_machine(const std::string& name_or_path, int nodes,
                            std::optional<double> price_per_node_hour_usd) {
  topo::Topology machine = topo::load_topology(name_or_path);
  if (nodes > 0 && !(nodes == 1 && !machine.is_cluster())) {
    machine = topo::scale_out(machine, nodes);
  }
  if (price_per_node_hour_usd) set_price_per_hour(machine, *price_per_node_hour_usd);
  return machine;
}

void set_price_per_hour(topo::Topology& machine, double usd_per_node_hour) {
  if (!machine.instance) {
    machine.instance = topo::Instance{};
    machine.instance->provider = "user";
    machine.instance->name = machine.name;
  }
  machine.instance->price_per_hour_usd = usd_per_node_hour * std::max(1, machine.host_count);
  machine.instance->price_as_of = topo::Instance::kGivenPrice;
  machine.instance->price_source = fmt::format("--price-per-hour {}", usd_per_node_hour);
}

}  // namespace linksim::app
