#include "sim/cli/machine_option.hpp"

#include "sim/app/machine.hpp"
#include "sim/cli/whole_number_range.hpp"
#include "sim/topo/cluster_loader.hpp"

namespace linksim::cli {

void add_nodes_option(CLI::App* cmd, int& nodes) {
  cmd->add_option("--nodes", nodes,
                  "Run on this many nodes of the machine, joined by its NICs' fabric (a cluster "
                  "file: resize it)")
      ->check(whole_number_range(1, topo::kMaxClusterHosts));
}

topo::Topology load_machine(const std::string& name_or_path, int nodes) {
  return app::load_machine(name_or_path, nodes);
}

}  // namespace linksim::cli
