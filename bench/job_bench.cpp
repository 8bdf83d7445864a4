// A training step with a long 1F1B pipeline (issue 13, item 12): Llama 2 7B on one DGX A100,
// tensor 2 x pipeline 4, with many micro-batches, through work::simulate_job as `linksim run`
// calls it without a trace (the graph built once, run once to find the overlap and again with
// the SM-slowed compute, the summary and the names). Reports the predicted step, the tasks and
// flows of the last run (its makespan is the step), and the process's peak resident memory so
// far.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include "sim/topo/loader.hpp"
#include "sim/work/job_sim.hpp"
#include "sim/work/model.hpp"

namespace {

double peak_rss_MB() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // Linux: kilobytes
}

void BM_OneFOneB7B(benchmark::State& state) {
  const int micro_batches = static_cast<int>(state.range(0));
  const linksim::topo::Topology machine = linksim::topo::load_topology("dgx-a100");
  const linksim::work::ModelSpec model = linksim::work::load_model("llama2-7b");
  linksim::work::Scenario sc;
  sc.file = "<bench>";
  sc.model = "llama2-7b";
  sc.job.kind = linksim::work::JobKind::training;
  sc.job.global_batch = micro_batches;
  sc.job.sequence_length = 2048;
  sc.plan.data = 1;
  sc.plan.tensor = 2;
  sc.plan.pipeline = 4;
  sc.plan.micro_batches = micro_batches;
  linksim::work::JobResult r;
  for (auto _ : state) {
    r = linksim::work::simulate_job(machine, model, sc);
    benchmark::DoNotOptimize(r.step_s);
  }
  state.counters["makespan_s"] = r.timeline->makespan_s;
  state.counters["tasks"] = static_cast<double>(r.simulation->task_count());
  state.counters["channels"] = static_cast<double>(r.simulation->channel_count());
  state.counters["flow_starts"] = static_cast<double>(r.timeline->flow_starts);
  state.counters["solves"] = static_cast<double>(r.timeline->solves);
  state.counters["peak_rss_MB"] = peak_rss_MB();
}
BENCHMARK(BM_OneFOneB7B)->Arg(100)->Arg(1000)->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace
