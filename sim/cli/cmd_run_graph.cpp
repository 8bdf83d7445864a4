// `linksim run-graph GRAPH.json --topology FILE`: simulate a task graph on a machine.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "sim/cli/command_outputs.hpp"
#include "sim/cli/commands.hpp"
#include "sim/cli/progress.hpp"
#include "sim/engine/summary.hpp"
#include "sim/report/chrome_trace.hpp"
#include "sim/report/formats.hpp"
#include "sim/topo/loader.hpp"
#include "sim/work/chakra_trace.hpp"
#include "sim/work/task_graph.hpp"

namespace linksim::cli {
namespace {

// Past this many tasks, the report leaves out the per-task list unless asked for it.
constexpr std::size_t kListTasksUpTo = 10000;

}  // namespace

void register_run_graph(CLI::App& app) {
  struct Args {
    std::string graph;
    std::string topology;
    std::string format = "table";
    std::string trace;
    std::string output;
    bool force = false;
    std::string rates = "line";
    std::string tasks = "auto";
  };
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(
      "run-graph",
      "Simulate a task graph (docs/task-graph-format.md) on a machine and report "
      "makespan, per-GPU compute/communication and per-link use");
  cmd->add_option(
         "graph", args->graph,
         "Task graph JSON file, or a Chakra trace set (PREFIX of PREFIX.N.et, or its folder)")
      ->required();
  cmd->add_option("--topology,-t", args->topology,
                  "Topology file, or the name of a shipped machine")
      ->required();
  cmd->add_option("--format,-f", args->format, "Output format")
      ->check(CLI::IsMember({"table", "json", "csv"}))
      ->capture_default_str();
  cmd->add_option("--trace", args->trace, "Also write a Chrome trace (open in Perfetto)")
      ->check(output_file_name());
  cmd->add_option("--output,-o", args->output, "Write the report here instead of stdout")
      ->check(output_file_name());
  cmd->add_flag("--force", args->force, "Overwrite existing output files");
  cmd->add_option("--rates", args->rates,
                  "Link capacities: line (the links' line rates, as the seed article counts) or "
                  "payload (after encoding and headers, as collectives and copies see them)")
      ->check(CLI::IsMember({"line", "payload"}))
      ->capture_default_str();
  cmd->add_option("--tasks", args->tasks,
                  "List every task's start and end: all, none, or auto (all for graphs of at "
                  "most " +
                      std::to_string(kListTasksUpTo) + " tasks)")
      ->check(CLI::IsMember({"auto", "all", "none"}))
      ->capture_default_str();
  add_quiet_flag(cmd);
  cmd->callback([args] {
    CommandOutputs outputs(args->force);
    outputs.claim(args->trace);
    outputs.claim(args->output);
    const topo::Topology topology = topo::load_topology(args->topology);
    const work::LinkRates rates =
        args->rates == "payload" ? work::LinkRates::payload : work::LinkRates::line;
    // A Chakra trace set (a folder, NAME.N.et, or a prefix with PREFIX.0.et beside it), else
    // linksim's JSON task graph.
    const work::TaskGraph graph = work::is_chakra_trace(args->graph)
                                      ? work::load_chakra_trace(args->graph, topology, rates)
                                      : work::load_task_graph(args->graph, topology, rates);
    // Channels' busy intervals and load serve only the trace.
    engine::RunOptions options;
    options.record_channel_intervals = !args->trace.empty();
    options.record_channel_load = !args->trace.empty();
    // A large graph says how far it is, on a terminal (progress.hpp).
    Progress progress("run-graph", "tasks finished", graph.simulation.task_count());
    options.progress = progress.callback();
    const engine::Timeline timeline = graph.simulation.run(options);
    progress.finish();
    const engine::Names names{graph.task_names, graph.gpu_names,
                              work::channel_names(graph, topology)};
    engine::Summary summary = engine::summarize(graph.simulation, timeline, names, graph.comm_ops);
    const bool list_tasks =
        args->tasks == "all" ||
        (args->tasks == "auto" && graph.simulation.task_count() <= kListTasksUpTo);
    if (!list_tasks) std::vector<engine::TaskRow>().swap(summary.tasks);
    std::string text;
    if (args->format == "json") {
      text = report::to_json(summary);
    } else if (args->format == "csv") {
      text = report::to_csv(summary);
    } else {
      text = report::to_table(summary);
    }
    if (!args->trace.empty()) {
      outputs.put(args->trace, report::to_chrome_trace(graph.simulation, timeline, names));
    }
    outputs.put(args->output, text);
    outputs.write();
  });
}

}  // namespace linksim::cli
