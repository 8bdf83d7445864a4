#include "sim/work/job_sim.hpp"

#include <fmt/format.h>

#include <memory>
#include <stdexcept>

#include "sim/core/error.hpp"
#include "sim/core/memory_bound.hpp"
#include "sim/work/advice.hpp"
#include "sim/work/fit_failure.hpp"
#include "sim/work/job_accounting.hpp"
#include "sim/work/job_builder.hpp"
#include "sim/work/job_energy.hpp"
#include "sim/work/job_planes.hpp"
#include "sim/work/layer_roofline.hpp"
#include "sim/work/plan_check.hpp"
#include "sim/work/rank_layout.hpp"
#include "sim/work/sm_contention.hpp"
#include "sim/work/time_to_train.hpp"

namespace linksim::work {
namespace {

// The scenario with "data": "fill" resolved against the machine.
Scenario with_data_filled(const topo::Topology& machine, const Scenario& scenario) {
  Scenario sc = scenario;
  if (!sc.plan.data_fills) return sc;
  const auto gpus = static_cast<int>(machine.count(topo::NodeKind::gpu));
  const int per_replica = sc.plan.tensor * sc.plan.pipeline * sc.plan.context;
  if (gpus % per_replica != 0) {
    throw DoesNotFit(sc.file, "/plan/data",
                     fmt::format("\"fill\" needs tensor x pipeline x context = {} to divide {}'s "
                                 "{} GPUs",
                                 per_replica, machine.name, gpus));
  }
  sc.plan.data = gpus / per_replica;
  return sc;
}

void check_plan(const topo::Topology& machine, const ModelSpec& model, const Scenario& sc) {
  if (auto problem = plan_problem(machine, model, sc.job, sc.plan)) {
    if (problem->machine_too_small) throw DoesNotFit(sc.file, problem->pointer, problem->message);
    throw InputError(sc.file, problem->pointer, problem->message);
  }
}

// A job pays for the whole machine, or on a cluster for the nodes it occupies.
std::optional<double> job_price_per_hour_usd(const topo::Topology& machine, int gpus) {
  if (!machine.instance || !machine.instance->price_per_hour_usd) return std::nullopt;
  double price = *machine.instance->price_per_hour_usd;
  if (machine.is_cluster()) {
    const int per = machine.cluster->gpus_per_host;
    price = price / machine.cluster->hosts * ((gpus + per - 1) / per);
  }
  return price;
}

// The job's graph, on one plane of each set of identical planes where all of its traffic
// allows it (job_planes.hpp), else on every plane.
std::unique_ptr<JobBuilder> build_job(const topo::Topology& machine, const ModelSpec& model,
                                      const Scenario& sc, bool leave_out_planes, int replicas) {
  if (leave_out_planes) {
    try {
      auto builder = std::make_unique<JobBuilder>(machine, model, sc, true, replicas);
      builder->build();
      return builder;
    } catch (const PlanesDoNotHold&) {
      // some traffic needs every plane: build it again on all of them
    }
  }
  auto builder = std::make_unique<JobBuilder>(machine, model, sc, false, replicas);
  builder->build();
  return builder;
}

}  // namespace

JobResult simulate_job(const topo::Topology& machine, const ModelSpec& model,
                       const Scenario& scenario, const JobOptions& options) {
  if (scenario.job.kind == JobKind::serving) {
    throw std::invalid_argument("simulate_job: a serving job is simulate_serving's");
  }
  const Scenario sc = with_data_filled(machine, scenario);
  check_plan(machine, model, sc);
  // A GPU without FP8 tensor cores is a finding about the machine, as one too small is.
  if (auto problem = fp8_matmul_problem(
          model, sc, *machine.node(machine.nodes_of(topo::NodeKind::gpu).front()).gpu)) {
    throw DoesNotFit(sc.file, "/precision/matmul", *problem);
  }
  const MemoryPhase phase(
      fmt::format("building and running a step of {} on {}", model.name, machine.name));
  const topo::GpuModel& gpu = *machine.node(machine.nodes_of(topo::NodeKind::gpu).front()).gpu;
  JobResult res;
  res.machine = machine.name;
  res.machine_title = machine.title;
  res.gpus = sc.plan.gpus();
  res.price_per_hour_usd = job_price_per_hour_usd(machine, res.gpus);
  if (res.price_per_hour_usd) res.price_as_of = machine.instance->price_as_of;

  const FitResult fit = check_fit(model, sc.job, sc.plan, gpu, 0.9);
  res.memory = fit.need;
  res.fit_explanation = fit.explanation;
  if (!fit.fits && options.check_memory) {
    throw DoesNotFit(sc.file, "/plan", does_not_fit_message(machine, model, sc, gpu, fit));
  }

  std::vector<int> gpu_of_rank;
  std::vector<std::string> gpu_ids;
  for (auto g : plan_gpus(machine, sc.plan)) {
    gpu_of_rank.push_back(machine.node(g).ordinal);
    gpu_ids.push_back(machine.node(g).id);
  }

  // Pass 1 finds how much of each compute task overlaps communication; pass 2 runs the same
  // graph again with that part slowed (sm_contention.hpp). Where nothing is slowed (no SM share,
  // or no overlap) pass 2 would repeat pass 1 exactly, so pass 1 stands.
  const int replicas = replicas_to_build(machine, model, sc.job, sc.plan, options.fold_replicas);
  std::unique_ptr<JobBuilder> built =
      build_job(machine, model, sc, options.leave_out_planes, replicas);
  const JobBuilder& builder = *built;
  std::shared_ptr<engine::Simulation> sim = builder.sim();
  engine::RunOptions run_options;
  run_options.record_channel_intervals = options.record_channel_intervals;
  run_options.record_channel_load = options.record_channel_intervals;  // both only for traces
  const auto run = [&] {
    engine::Timeline t = sim->run(run_options);
    if (builder.planes()) fill_left_out_planes(*builder.planes(), t);
    return std::make_shared<engine::Timeline>(std::move(t));
  };
  auto tl = run();
  const double share = comm_sm_share(sc.compute.comm_sm_share, builder.max_channels(), gpu);
  res.comm_sm_share = share;
  res.compute_by_operation = compute_shares(model, sc, gpu);
  const std::vector<double> scale = compute_slowdowns(
      overlap_fractions(*sim, *tl, builder.records(), builder.compute_tasks(), gpu_of_rank), share);
  bool slowed = false;
  for (double f : scale)
    slowed = slowed || f != 1.0;
  if (slowed) {
    // The same graph with new compute times, set in place (no copy: sm_contention.hpp says why
    // a run of it is bit for bit a run of the copy pass 2 used to make). Pass 1's timeline has
    // been read; drop it before pass 2 allocates its own.
    scale_compute_in_place(*sim, builder.compute_tasks(), scale);
    tl.reset();
    tl = run();
  }

  auto names = std::make_shared<engine::Names>(
      job_names(machine, *sim, builder.records(), builder.compute_tasks(), builder.compute_labels(),
                std::move(gpu_ids), options.name_tasks));
  const bool folded = replicas < sc.plan.dp_ranks();
  account_job(res, machine, sc, *sim, *tl, *names, builder.records(),
              folded ? builder.built_gpus() : std::vector<int>{});
  if (folded) {
    res.notes.push_back(fmt::format(
        "simulated {} of the {} data-parallel ranks ({} of {} GPUs): the others run the same "
        "work on other nodes; each collective across them was simulated on its whole group, "
        "beside the other tensor ranks' groups, and the step waits its time (replica_folding)",
        replicas, sc.plan.dp_ranks(), replicas * sc.plan.tensor * sc.plan.pipeline,
        sc.plan.gpus()));
  }
  if (auto warning = tensor_spans_nodes_warning(machine, sc.plan)) res.notes.push_back(*warning);
  res.simulation = sim;
  res.timeline = tl;
  res.names = names;
  if (sc.job.train_tokens) {
    res.to_train = time_to_train(*sc.job.train_tokens, sc.job.goodput, res.tokens_per_s, res.gpus,
                                 res.price_per_hour_usd);
  }
  res.energy = job_energy(machine, res);
  if (auto note = energy_unknown_note(machine)) res.notes.push_back(*note);
  res.advice = advise(res, sc);
  return res;
}

}  // namespace linksim::work
