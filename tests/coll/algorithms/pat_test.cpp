// The PAT plug-in (sim/coll/algorithms/pat.cpp): one GPU per node, Simple only, every channel,
// and all-gather and reduce-scatter by hand on four one-GPU nodes.
#include <gtest/gtest.h>

#include <algorithm>

#include "sim/coll/algorithm_registry.hpp"
#include "sim/coll/collective_sim.hpp"
#include "sim/topo/cluster_builder.hpp"
#include "sim/topo/loader.hpp"
#include "tests/support/simple_copy_share.hpp"
#include "tests/support/temp_files.hpp"

namespace linksim::coll {
namespace {

const CollectiveAlgorithm& pat() {
  return AlgorithmRegistry::builtin().get(*AlgorithmRegistry::builtin().find("PAT"));
}

// One A100 behind a PCIe 4.0 switch with one 100 Gb/s InfiniBand NIC.
std::string one_gpu_host_json() {
  return R"({
  "title": "1x A100, one NIC",
  "nodes": [
    {"id": "gpu0", "kind": "gpu", "model": "A100-SXM4-80GB"},
    {"id": "sw0", "kind": "pcie_switch"},
    {"id": "cpu0", "kind": "cpu", "vendor": "intel"},
    {"id": "nic0", "kind": "nic", "port_bandwidth": "100 Gb/s"}
  ],
  "links": [
    {"a": "gpu0", "b": "sw0", "kind": "pcie", "generation": 4},
    {"a": "nic0", "b": "sw0", "kind": "pcie", "generation": 4},
    {"a": "sw0", "b": "cpu0", "kind": "pcie", "generation": 4}
  ]
})";
}

class PatOnFourNodes : public ::testing::Test {
 protected:
  testing::TempDir dir;
  topo::Topology host = topo::load_topology(dir.write("host.json", one_gpu_host_json()));
  topo::Topology cluster = topo::build_cluster(host, 4, topo::FabricSpec{});
  Communicator comm{cluster, cluster.nodes_of(topo::NodeKind::gpu)};

  Outcome run(Op op, double bytes, Granularity g) {
    Request r;
    r.op = op;
    r.size_bytes = bytes;
    return simulate_choice(comm, r, Choice{pat().id(), Protocol::simple, 2}, g);
  }
};

TEST_F(PatOnFourNodes, SimpleOnlyOnEveryChannel) {
  Request r;
  r.op = Op::all_gather;
  r.size_bytes = 4096;
  EXPECT_EQ(pat().protocols(comm, r), std::vector<Protocol>{Protocol::simple});
  // enqueue.cc never lowers PAT's channels (its maxThreads entry is 0): all of them, even at 4 KiB.
  EXPECT_EQ(pat().channels(comm, Protocol::simple, 4096), comm.max_channels());
  EXPECT_EQ(pat().base_latency_s(Protocol::simple), 8.0e-6);
  // NET: Tree's 14 us (ppn = 1) over 3.5 per stage, as tuning.cc's log term charges it.
  EXPECT_DOUBLE_EQ(pat().hop_latency_s(Protocol::simple, HwClass::net), 4.0e-6);
  EXPECT_EQ(pat().bandwidth_efficiency(comm), 0.75);
}

TEST_F(PatOnFourNodes, ACandidateForAllGatherAndReduceScatterOnly) {
  Request r;
  r.size_bytes = 1 << 20;
  for (Op op : {Op::all_gather, Op::reduce_scatter, Op::all_reduce}) {
    r.op = op;
    int found = 0;
    for (const Choice& c : candidate_choices(comm, r)) {
      if (c.algorithm == pat().id()) ++found;
    }
    EXPECT_EQ(found, op == Op::all_reduce ? 0 : 1) << to_string(op);
  }
}

TEST_F(PatOnFourNodes, AllGatherByHand) {
  // By steps, 48 MB (12 MB a part). log2 4 = 2 stages: distance 2 with 1 part, then distance 1
  // with 2 parts; every rank sends one flow and receives one a stage, so each NIC port (100 Gb/s
  // x 0.96 = 12 GB/s) carries one flow. On the network Simple's payload share is 1, times PAT's
  // 0.75: stage 0 moves 12e6 / 0.75 = 16e6 B in 1.3333 ms, stage 1 32e6 B in 2.6667 ms.
  // Latency: base 8.0 us, the schedule 2.8 us x 4 ranks = 11.2 us, and per stage the net hop of
  // 4.0 us plus the route's 1.13 us (four PCIe 4.0 hops of 0.25 us, one InfiniBand switch of
  // 0.13 us).
  ASSERT_EQ(comm.node_count(), 4);
  EXPECT_NEAR(comm.route(0, 2).latency_s(), 1.13e-6, 1e-12);
  const double expected_s = 8.0e-6 + 11.2e-6 + 2 * (4.0e-6 + 1.13e-6) + 3 * 12e6 / 0.75 / 12e9;
  EXPECT_NEAR(run(Op::all_gather, 48e6, Granularity::steps).time_s, expected_s, 1e-10);
  // Reduce-scatter runs the same stages backwards (distance 1 with 2 parts, then 2 with 1).
  EXPECT_NEAR(run(Op::reduce_scatter, 48e6, Granularity::steps).time_s, expected_s, 1e-10);
}

TEST_F(PatOnFourNodes, SlicesAddTheirSynchronisation) {
  // The slices form moves the same bytes over the same routes, each stage on its own worker
  // stream, chunk by chunk: 48 MB keeps the 512 KiB chunk (512 KiB x 2 channels x 32 = 33.6 MB
  // < 48 MB), so stage 1's 12 MB a channel runs as 23 chunks, each followed by Simple's 3.5 us
  // synchronisation and by its links' latency (a CTA's next chunk waits for both,
  // slice_pipeline.hpp): at most 23 x (3.5 us + L) more than the steps form, L the longest
  // route's latency, which waits for a whole stage before the next (the slices overlap them,
  // which can only save).
  const double steps_s = run(Op::all_gather, 48e6, Granularity::steps).time_s;
  const double slices_s = run(Op::all_gather, 48e6, Granularity::slices).time_s;
  double route_s = 0;
  for (int a = 0; a < comm.size(); ++a) {
    for (int b = 0; b < comm.size(); ++b) {
      if (a != b) route_s = std::max(route_s, comm.route(a, b).latency_s());
    }
  }
  EXPECT_GT(slices_s, steps_s);
  EXPECT_LT(slices_s, steps_s + 23 * (linksim::testing::kSimpleSliceSyncS + route_s));
}

TEST(PatAlgorithmTest, ThreeNodesSendTwoPartsInTwoStages) {
  // n = 3 rounds up to 4: distance 2 sends the part at t = 0 (0 + 2 < 3), distance 1 the one
  // at t = 0 (t = 2 has no t + 1 < 3): one part each, 2 = n - 1 in all. 30 MB: 10 MB a part,
  // 10e6 / 0.75 / 12e9 = 1.1111 ms a stage. Latency as on four nodes, with 2.8 x 3 = 8.4 us.
  testing::TempDir dir;
  const topo::Topology host = topo::load_topology(dir.write("host.json", one_gpu_host_json()));
  const topo::Topology cluster = topo::build_cluster(host, 3, topo::FabricSpec{});
  const Communicator comm(cluster, cluster.nodes_of(topo::NodeKind::gpu));
  Request r;
  r.op = Op::all_gather;
  r.size_bytes = 30e6;
  const Outcome o =
      simulate_choice(comm, r, Choice{pat().id(), Protocol::simple, 2}, Granularity::steps);
  EXPECT_NEAR(o.time_s, 8.0e-6 + 8.4e-6 + 2 * (4.0e-6 + 1.13e-6) + 2 * 10e6 / 0.75 / 12e9, 1e-10);
}

TEST(PatAlgorithmTest, IneligibleWithSeveralGpusOnANode) {
  const topo::Topology dgx = topo::load_topology("dgx-a100");
  const Communicator comm(dgx, dgx.nodes_of(topo::NodeKind::gpu));
  EXPECT_EQ(pat().why_ineligible(comm), "PAT runs one GPU per node; here: 8 GPUs on 1 node");
  Request r;
  r.op = Op::all_gather;
  r.size_bytes = 1 << 20;
  for (const Choice& c : candidate_choices(comm, r))
    EXPECT_NE(c.algorithm, pat().id());
}

}  // namespace
}  // namespace linksim::coll
