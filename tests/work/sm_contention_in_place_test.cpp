// Pass 2 of simulate_job (sm_contention.hpp) sets the slowed compute times in the pass-1 graph
// itself instead of running a copy of it. These tests hold the new way to the old one bit for
// bit: the whole timeline of the in-place graph against the copy's, and the 1F1B step of
// BM_OneFOneB7B (bench/job_bench.cpp) against the figures the copying code gave.
//
// Why they must agree: a run reads channel capacities, path channels and latencies, task kinds,
// GPUs, dependencies, amounts and path-set ids. The copy reproduces all of these in the same
// order, each amount as `amount * factor` with factor 1.0 (an exact product) for unlisted tasks;
// the in-place way leaves those amounts alone and sets each listed one to the same IEEE product
// of the same two doubles. Path sets are renumbered one to one by the copy, and a run only
// compares set ids for equality (group replay), so equal sets stay equal. Same input, same
// deterministic event loop: the same bits.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <vector>

#include "sim/topo/loader.hpp"
#include "sim/work/job_builder.hpp"
#include "sim/work/job_sim.hpp"
#include "sim/work/model.hpp"
#include "sim/work/rank_layout.hpp"
#include "sim/work/sm_contention.hpp"

namespace linksim::work {
namespace {

// BM_OneFOneB7B's job: Llama 2 7B, TP 2 x PP 4 on a DGX A100, sequence 2048.
Scenario one_f_one_b(int micro_batches) {
  Scenario sc;
  sc.file = "<test>";
  sc.model = "llama2-7b";
  sc.job.kind = JobKind::training;
  sc.job.global_batch = micro_batches;
  sc.job.sequence_length = 2048;
  sc.plan.data = 1;
  sc.plan.tensor = 2;
  sc.plan.pipeline = 4;
  sc.plan.micro_batches = micro_batches;
  return sc;
}

std::uint64_t bits(double x) {
  return std::bit_cast<std::uint64_t>(x);
}

void expect_same_doubles(const std::vector<double>& a, const std::vector<double>& b,
                         const char* what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (std::size_t i = 0; i < a.size(); ++i)
    ASSERT_EQ(bits(a[i]), bits(b[i])) << what << "[" << i << "]";
}

void expect_same_intervals(const std::vector<std::vector<engine::TaskInterval>>& a,
                           const std::vector<std::vector<engine::TaskInterval>>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t g = 0; g < a.size(); ++g) {
    ASSERT_EQ(a[g].size(), b[g].size()) << "GPU " << g;
    for (std::size_t i = 0; i < a[g].size(); ++i) {
      ASSERT_EQ(bits(a[g][i].start_s), bits(b[g][i].start_s));
      ASSERT_EQ(bits(a[g][i].end_s), bits(b[g][i].end_s));
      ASSERT_EQ(a[g][i].task, b[g][i].task);
    }
  }
}

TEST(SmContentionInPlace, PassTwoInPlaceRunsBitForBitAsTheCopy) {
  const topo::Topology machine = topo::load_topology("dgx-a100");
  const ModelSpec model = load_model("llama2-7b");
  const Scenario sc = one_f_one_b(48);
  const topo::GpuModel& gpu = *machine.node(machine.nodes_of(topo::NodeKind::gpu).front()).gpu;
  std::vector<int> gpu_of_rank;
  for (auto g : plan_gpus(machine, sc.plan))
    gpu_of_rank.push_back(machine.node(g).ordinal);

  JobBuilder builder(machine, model, sc, false);
  builder.build();
  engine::Simulation& sim = *builder.sim();
  engine::RunOptions options;
  const engine::Timeline first = sim.run(options);
  const std::vector<double> scale = compute_slowdowns(
      overlap_fractions(sim, first, builder.records(), builder.compute_tasks(), gpu_of_rank),
      comm_sm_share(std::nullopt, builder.max_channels(), gpu));
  std::size_t slowed = 0;
  for (double f : scale)
    slowed += f != 1.0;
  ASSERT_GT(slowed, 0u) << "the case must slow some compute, or it tests nothing";

  const engine::Simulation copy = with_compute_scaled(sim, builder.compute_tasks(), scale);
  const engine::Timeline old_way = copy.run(options);
  scale_compute_in_place(sim, builder.compute_tasks(), scale);
  const engine::Timeline new_way = sim.run(options);

  ASSERT_EQ(sim.task_count(), copy.task_count());
  for (engine::TaskId t = 0; t < sim.task_count(); ++t)
    ASSERT_EQ(bits(sim.amount(t)), bits(copy.amount(t))) << "task " << t;
  EXPECT_EQ(bits(new_way.makespan_s), bits(old_way.makespan_s));
  EXPECT_NE(bits(new_way.makespan_s), bits(first.makespan_s)) << "pass 2 should differ";
  expect_same_doubles(new_way.task_start_s, old_way.task_start_s, "task_start_s");
  expect_same_doubles(new_way.task_end_s, old_way.task_end_s, "task_end_s");
  expect_same_intervals(new_way.gpu_compute, old_way.gpu_compute);
  expect_same_intervals(new_way.gpu_comm, old_way.gpu_comm);
  ASSERT_EQ(new_way.channels.size(), old_way.channels.size());
  for (std::size_t c = 0; c < new_way.channels.size(); ++c) {
    const engine::ChannelUsage& a = new_way.channels[c];
    const engine::ChannelUsage& b = old_way.channels[c];
    ASSERT_EQ(bits(a.bytes), bits(b.bytes)) << "channel " << c;
    ASSERT_EQ(bits(a.busy_s), bits(b.busy_s)) << "channel " << c;
    ASSERT_EQ(bits(a.saturated_s), bits(b.saturated_s)) << "channel " << c;
    ASSERT_EQ(a.busy.size(), b.busy.size()) << "channel " << c;
  }
  EXPECT_EQ(new_way.flow_starts, old_way.flow_starts);
  EXPECT_EQ(new_way.flow_ends, old_way.flow_ends);
  EXPECT_EQ(new_way.solves, old_way.solves);
  EXPECT_EQ(new_way.event_times, old_way.event_times);
}

}  // namespace
}  // namespace linksim::work
