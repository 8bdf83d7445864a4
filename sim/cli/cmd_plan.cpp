// `linksim plan SCENARIO`: every parallel plan that fits the scenario's job on its machines,
// simulated and ranked (sim/work/plan_search.hpp).
#include <fmt/format.h>

#include "sim/cli/command_outputs.hpp"
#include "sim/cli/commands.hpp"
#include "sim/cli/jobs_option.hpp"
#include "sim/cli/machine_option.hpp"
#include "sim/cli/progress.hpp"
#include "sim/cli/whole_number_range.hpp"
#include "sim/report/job_report.hpp"
#include "sim/work/model.hpp"
#include "sim/work/plan_search.hpp"

namespace linksim::cli {
namespace {

struct PlanArgs {
  std::string scenario;
  std::vector<std::string> topologies;
  std::string rank_by = "step";
  std::string format = "table";
  std::string output;
  std::size_t top = 10;
  std::size_t max_plans = 64;
  int nodes = 0;
  std::optional<double> price_per_hour;
  int jobs = 0;  // threads; 0: one per core
  bool no_range = false;
  bool force = false;
};

work::PlanRanking ranking(const std::string& name) {
  if (name == "tokens") return work::PlanRanking::tokens_per_s;
  if (name == "cost") return work::PlanRanking::cost_per_mtoken;
  return work::PlanRanking::step_time;
}

}  // namespace

void register_plan(CLI::App& app) {
  auto a = std::make_shared<PlanArgs>();
  auto* cmd = app.add_subcommand(
      "plan",
      "Find the parallel plans (TP x PP x DP x ZeRO x micro-batches, EP for MoE) that fit "
      "a scenario's job on its machines, simulate each and rank them");
  cmd->add_option("scenario", a->scenario, "Scenario file, or the name of a shipped scenario")
      ->required();
  cmd->add_option("-t,--topology", a->topologies,
                  "Machine(s) to plan for instead of the scenario's (repeatable)");
  cmd->add_option("--rank-by", a->rank_by, "step (time), tokens (tokens/s) or cost ($/Mtoken)")
      ->check(CLI::IsMember({"step", "tokens", "cost"}));
  cmd->add_option("--top", a->top, "Plans shown in the table (JSON and CSV list all)")
      ->check(whole_number_range(1, 1000));
  cmd->add_option("--max-plans", a->max_plans, "Most plans simulated, over all machines")
      ->check(whole_number_range(1, 4096));
  cmd->add_option("--format", a->format, "table, json or csv")
      ->check(CLI::IsMember({"table", "json", "csv"}));
  cmd->add_option("-o,--output", a->output, "Write the report here instead of stdout (- is stdout)")
      ->check(output_file_name());
  cmd->add_flag("--force", a->force, "Overwrite output files");
  add_nodes_option(cmd, a->nodes);
  add_price_option(cmd, a->price_per_hour);
  cmd->add_flag("--no-range", a->no_range,
                "No step-time range for the plans shown (docs/uncertainty.md): two simulations "
                "fewer each");
  add_jobs_option(cmd, a->jobs, "Plans");
  add_quiet_flag(cmd);
  cmd->callback([a] {
    CommandOutputs outputs(a->force);
    outputs.claim(a->output);
    const work::Scenario sc = work::load_scenario(a->scenario);
    if (sc.gradient_sync) {
      throw InputError(sc.file, "/job/kind", "a gradient_sync job has no plan to search");
    }
    const work::ModelSpec model = work::scenario_model(sc);
    std::vector<topo::Topology> machines;
    for (const auto& m : a->topologies.empty() ? sc.topologies : a->topologies)
      machines.push_back(load_machine(m, a->nodes, a->price_per_hour));
    std::vector<const topo::Topology*> pointers;
    for (const auto& m : machines)
      pointers.push_back(&m);
    Progress progress("plan", "plans simulated", 0);
    work::PlanSearchOptions options;
    options.rank_by = ranking(a->rank_by);
    options.max_simulated = a->max_plans;
    options.progress = progress.callback();
    options.threads = a->jobs;
    options.ranges_for_best = a->no_range ? 0 : a->top;
    const work::PlanSearchResult result = work::search_plans(sc, model, pointers, options);
    progress.finish();
    if (result.ranked.empty()) {
      throw InputError(sc.file, "/plan",
                       fmt::format("none of the {} plans tried runs and fits in memory on these "
                                   "machines; expected more GPUs (a cluster, or --nodes), or "
                                   "less memory per GPU (recompute, offload, quantization)",
                                   result.enumerated));
    }
    std::string text;
    if (a->format == "json") {
      text = report::plans_json(result, sc).dump(2) + "\n";
    } else if (a->format == "csv") {
      text = report::plans_csv(result, sc);
    } else {
      text = report::format_plans(result, sc, a->top);
    }
    outputs.put(a->output, text);
    outputs.write();
  });
}

}  // namespace linksim::cli
