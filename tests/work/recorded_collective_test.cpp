// sim/work/recorded_collective.*: a recorded lowering added to a job gives the graph that
// lowering in place gives, id for id, and so the same run.
#include "sim/work/recorded_collective.hpp"

#include <gtest/gtest.h>

#include "sim/coll/collective_sim.hpp"
#include "sim/topo/link_payload.hpp"
#include "sim/topo/loader.hpp"

namespace linksim::work {
namespace {

// Every task, path and channel of `a` and `b`, compared exactly.
void expect_same_graph(const engine::Simulation& a, const engine::Simulation& b) {
  ASSERT_EQ(a.task_count(), b.task_count());
  ASSERT_EQ(a.channel_count(), b.channel_count());
  for (engine::ChannelId c = 0; c < a.channel_count(); ++c)
    EXPECT_EQ(a.channel_capacity_Bps(c), b.channel_capacity_Bps(c)) << "channel " << c;
  for (engine::TaskId t = 0; t < a.task_count(); ++t) {
    EXPECT_EQ(a.kind(t), b.kind(t)) << "task " << t;
    EXPECT_EQ(a.amount(t), b.amount(t)) << "task " << t;
    EXPECT_EQ(a.gpu(t), b.gpu(t)) << "task " << t;
    EXPECT_EQ(a.peer_gpu(t), b.peer_gpu(t)) << "task " << t;
    const auto da = a.deps(t);
    const auto db = b.deps(t);
    EXPECT_EQ(std::vector<engine::TaskId>(da.begin(), da.end()),
              std::vector<engine::TaskId>(db.begin(), db.end()))
        << "task " << t;
    ASSERT_EQ(a.paths(t).size(), b.paths(t).size()) << "task " << t;
    for (std::size_t i = 0; i < a.paths(t).size(); ++i) {
      EXPECT_EQ(a.paths(t)[i].path, b.paths(t)[i].path) << "task " << t;
      EXPECT_EQ(a.paths(t)[i].share, b.paths(t)[i].share) << "task " << t;
      const engine::PathId p = a.paths(t)[i].path;
      EXPECT_EQ(a.path_latency_s(p), b.path_latency_s(p)) << "path " << p;
      const auto ca = a.path_channels(p);
      const auto cb = b.path_channels(p);
      EXPECT_EQ(std::vector<engine::ChannelId>(ca.begin(), ca.end()),
                std::vector<engine::ChannelId>(cb.begin(), cb.end()))
          << "path " << p;
    }
  }
}

// Two calls after a compute task each, on 4 GPUs of a DGX A100 (NVSwitch): lowered in place
// into one simulation, and recorded once and added twice into another.
void check_repeats_match(coll::Protocol protocol) {
  const topo::Topology machine = topo::load_topology("dgx-a100");
  auto gpus = machine.nodes_of(topo::NodeKind::gpu);
  gpus.resize(4);
  const coll::Communicator comm(machine, gpus);
  coll::Request request;
  request.op = coll::Op::all_reduce;
  request.size_bytes = 64e6;
  request.protocol = protocol;
  const coll::Choice choice = coll::simulate_collective(comm, request).choice;
  const std::vector<double> capacities = topo::payload_capacities_Bps(machine);

  engine::Simulation in_place(capacities, 8);
  engine::Simulation replayed(capacities, 8);
  const RecordedCollective recorded(comm, request, choice, capacities);
  engine::TaskId last_in_place = in_place.add_compute(0, 1e-3, {});
  engine::TaskId last_replayed = replayed.add_compute(0, 1e-3, {});
  for (int call = 0; call < 2; ++call) {
    last_in_place = coll::lower_collective(comm, request, choice, in_place, {&last_in_place, 1});
    last_replayed = recorded.add_to(replayed, {&last_replayed, 1});
    EXPECT_EQ(last_in_place, last_replayed);
  }
  expect_same_graph(in_place, replayed);
  EXPECT_EQ(in_place.run().makespan_s, replayed.run().makespan_s);
}

TEST(RecordedCollective, RepeatsBuildTheGraphLoweringInPlaceBuildsSimple) {
  check_repeats_match(coll::Protocol::simple);
}

// LL has a per-rank throughput cap: a private channel per sending rank and call, which the
// copy must add again (not share with the first call).
TEST(RecordedCollective, RepeatsAddTheirOwnRankCapChannelsLl) {
  check_repeats_match(coll::Protocol::ll);
}

}  // namespace
}  // namespace linksim::work
