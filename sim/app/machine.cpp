#include "sim/app/machine.hpp"

#include "sim/topo/cluster_loader.hpp"
#include "sim/topo/loader.hpp"

namespace linksim::app {

topo::Topology load_machine(const std::string& name_or_path, int nodes) {
  topo::Topology machine = topo::load_topology(name_or_path);
  if (nodes > 0 && !(nodes == 1 && !machine.is_cluster())) {
    return topo::scale_out(machine, nodes);
  }
  return machine;
}

}  // namespace linksim::app
