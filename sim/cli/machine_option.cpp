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

void add_price_option(CLI::App* cmd, std::optional<double>& price) {
  cmd->add_option("--price-per-hour", price,
                  "Price every machine at this many US dollars per node-hour (a negotiated, "
                  "reserved or spot price) instead of its file's list price; a machine without "
                  "one gets it")
      ->check(CLI::NonNegativeNumber);
}

topo::Topology load_machine(const std::string& name_or_path, int nodes,
                            std::optional<double> price_per_node_hour_usd) {
  return app::load_machine(name_or_path, nodes, price_per_node_hour_usd);
}

}  // namespace linksim::cli
