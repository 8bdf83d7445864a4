// `linksim topo graphs MACHINE`: linksim's rings as NCCL's graph dump (NCCL_GRAPH_DUMP_FILE),
// and with --compare, NCCL's dump from a real node against them.
#include <fmt/format.h>

#include "sim/app/machine.hpp"
#include "sim/app/nccl_graphs.hpp"
#include "sim/cli/command_outputs.hpp"
#include "sim/cli/commands.hpp"
#include "sim/core/text_file.hpp"

namespace linksim::cli {
void add_topo_graphs(CLI::App* topo_cmd) {
  auto* cmd = topo_cmd->add_subcommand(
      "graphs",
      "linksim's rings as NCCL's graph dump (NCCL_GRAPH_DUMP_FILE), or NCCL's dump compared "
      "with them");
  auto file = std::make_shared<std::string>();
  auto compare = std::make_shared<std::string>();
  auto format = std::make_shared<std::string>("table");
  auto output = std::make_shared<std::string>();
  auto force = std::make_shared<bool>(false);
  cmd->add_option("file", *file, "Topology file, or the name of a shipped machine")->required();
  auto* compare_opt = cmd->add_option(
      "--compare", *compare,
      "NCCL's graph dump from a real node (NCCL_GRAPH_DUMP_FILE=... on a run): compare its "
      "rings and channels with linksim's");
  cmd->add_option("--format", *format, "With --compare: table (one line per difference) or json")
      ->check(CLI::IsMember({"table", "json"}))
      ->needs(compare_opt);
  cmd->add_option("-o,--output", *output, "File to write (default: stdout)")
      ->check(output_file_name());
  cmd->add_flag("--force", *force, "Overwrite the output file");
  cmd->callback([file, compare, format, output, force] {
    CommandOutputs outputs(*force);
    outputs.claim(*output);
    const topo::Topology machine = app::load_machine(*file, 0);
    if (compare->empty()) {
      outputs.put(*output, coll::to_nccl_graph_xml(app::linksim_graph_dump(machine)));
      outputs.write();
      return;
    }
    const auto result = app::compare_graph_dump(machine, read_text_file(*compare), *compare);
    if (*format == "json") {
      outputs.put(*output, coll::nccl_graph_comparison_json(result).dump(2) + "\n");
    } else {
      outputs.put(*output, fmt::format("NCCL graph dump {} against linksim on {}\n{}", *compare,
                                       machine.name, coll::format_nccl_graph_comparison(result)));
    }
    outputs.write();
  });
}

}  // namespace linksim::cli
