#include "sim/cli/machine_option.hpp"

#include "sim/core/error.hpp"
#include "sim/topo/cluster_loader.hpp"
#include "sim/topo/loader.hpp"

namespace linksim::cli {

void add_nodes_option(CLI::App* cmd, int& nodes) {
  cmd->add_option("--nodes", nodes,
                  "Run on this many nodes of the machine, joined by its NICs' fabric (a cluster "
                  "file: resize it)")
      ->check(CLI::Range(1, topo::kMaxClusterHosts));
}

topo::Topology load_machine(const std::string& name_or_path, int nodes) {
  topo::Topology machine = topo::load_topology(name_or_path);
  if (nodes > 0 && !(nodes == 1 && !machine.is_cluster())) {
    return topo::scale_out(machine, nodes);
  }
  return machine;
}

}  // namespace linksim::cli
