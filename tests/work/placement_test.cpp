// Placement (sim/work/placement.hpp): the one step from work to the engine. Machine: the task
// graph test box, gpu0, gpu1 and nic0 each on a 32 GB/s PCIe 4.0 x16 link to cpu0 (26.24 GB/s
// of payload: 32 x 0.82), gpu2 on nothing.
#include "sim/work/placement.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "sim/work/job_planes.hpp"
#include "sim/work/workload.hpp"
#include "tests/support/simple_copy_share.hpp"
#include "tests/support/task_graph_test_box.hpp"
#include "tests/support/temp_files.hpp"

namespace linksim::work {
namespace {

topo::NodeId node(const topo::Topology& t, const std::string& id) {
  for (topo::NodeId n = 0; n < t.nodes().size(); ++n) {
    if (t.node(n).id == id) return n;
  }
  throw std::logic_error("no node " + id);
}

std::vector<topo::NodeId> gpus_of(const topo::Topology& t) {
  return t.nodes_of(topo::NodeKind::gpu);
}

// Simple's wire efficiency, 0.904831 (tests/support/simple_copy_share.hpp has the arithmetic).
double simple_efficiency() {
  return testing::kSimpleCopyShare;
}

TEST(Placement, ASendCostsNcclsPointToPointAtPayloadRates) {
  const topo::Topology t = testing::task_graph_test_box();
  Placement p(t, gpus_of(t), {});
  const Work send{
      .kind = WorkKind::send, .amount = 10e9, .src = node(t, "gpu0"), .dst = node(t, "gpu1")};
  const Placed placed = p.add(send, {});
  EXPECT_EQ(placed.first, placed.end);
  // Ring's Simple hop latency over PCI, 5.7 us, then 10e9 / 0.904831 B over 26.24 GB/s:
  // 5.7e-6 + 0.4211810 s = 0.4211867 s.
  EXPECT_NEAR(p.simulation().run().makespan_s, 5.7e-6 + 10e9 / (simple_efficiency() * 26.24e9),
              1e-12);
}

TEST(Placement, ASendAtLineRatesIsTheSeedsRawTransfer) {
  const topo::Topology t = testing::task_graph_test_box();
  Placement p(t, gpus_of(t), {.rates = LinkRates::line});
  p.add({.kind = WorkKind::send, .amount = 10e9, .src = node(t, "gpu0"), .dst = node(t, "gpu1")},
        {});
  // The seed article's arithmetic: 10e9 B / 32e9 B/s = 0.3125 s, no protocol, no hop latency.
  EXPECT_DOUBLE_EQ(p.simulation().run().makespan_s, 0.3125);
}

TEST(Placement, ACopyMovesRawBytesAtPayloadRates) {
  const topo::Topology t = testing::task_graph_test_box();
  Placement p(t, gpus_of(t), {});
  p.add({.kind = WorkKind::copy, .amount = 2.624e9, .src = node(t, "gpu0"), .dst = node(t, "nic0")},
        {});
  // 2.624e9 B / 26.24e9 B/s = 0.1 s: no protocol, no hop latency.
  EXPECT_NEAR(p.simulation().run().makespan_s, 0.1, 1e-12);
}

TEST(Placement, ComputeDelayAndBarrierFollowTheirDependencies) {
  const topo::Topology t = testing::task_graph_test_box();
  Placement p(t, gpus_of(t), {});
  const engine::TaskId a =
      p.add({.kind = WorkKind::compute, .amount = 0.25, .gpu = node(t, "gpu1")}, {}).end;
  const engine::TaskId b = p.add({.kind = WorkKind::delay, .amount = 0.5}, {&a, 1}).end;
  const engine::TaskId c = p.add({.kind = WorkKind::barrier}, {&b, 1}).end;
  const engine::Timeline tl = p.simulation().run();
  EXPECT_EQ(p.simulation().gpu(a), 1);    // gpu1's ordinal numbers the engine's GPU
  EXPECT_DOUBLE_EQ(tl.makespan_s, 0.75);  // 0.25 s, then 0.5 s
  EXPECT_DOUBLE_EQ(tl.task_end_s[c], 0.75);
}

TEST(Placement, ARepeatedCollectiveTakesExactlyAsLongEachTime) {
  // The second call is the first's recorded lowering copied after it, so two back to back take
  // exactly twice one (nothing else shares the links).
  const topo::Topology t = testing::task_graph_test_box();
  const CollectiveWork c{coll::Op::all_reduce, {node(t, "gpu0"), node(t, "gpu1")}, {}, {}};
  const Work w{.kind = WorkKind::collective, .amount = 64e6, .collective = &c};
  Placement once(t, gpus_of(t), {});
  once.add(w, {});
  Placement twice(t, gpus_of(t), {});
  const engine::TaskId first = twice.add(w, {}).end;
  twice.add(w, {&first, 1});
  const double one_s = once.simulation().run().makespan_s;
  EXPECT_GT(one_s, 64e6 / 26.24e9);  // at least the bytes over one link's payload rate
  EXPECT_NEAR(twice.simulation().run().makespan_s, 2 * one_s, 1e-15);
  // One communicator, one choice: the same object both times.
  EXPECT_EQ(&twice.choice(c, 64e6), &twice.choice(c, 64e6));
}

TEST(Placement, WorkTheMachineCannotRunNamesTheFieldToBlame) {
  const topo::Topology t = testing::task_graph_test_box();
  Placement p(t, gpus_of(t), {});
  try {
    p.add({.kind = WorkKind::send, .amount = 1, .src = node(t, "gpu0"), .dst = node(t, "gpu2")},
          {});
    FAIL() << "a send to an unconnected GPU was placed";
  } catch (const PlacementError& e) {
    EXPECT_STREQ(e.field(), "dst");
    EXPECT_STREQ(e.what(), "no route from gpu0 to gpu2 in topology \"test-box\"");
  }
  try {
    p.add({.kind = WorkKind::copy, .amount = 1, .src = node(t, "nic0"), .dst = node(t, "gpu2")},
          {});
    FAIL() << "a copy to an unconnected GPU was placed";
  } catch (const PlacementError& e) {
    EXPECT_STREQ(e.field(), "dst");
    EXPECT_STREQ(e.what(), "no route from nic0 to gpu2 in topology \"test-box\"");
  }
  const CollectiveWork c{coll::Op::all_reduce, {node(t, "gpu0"), node(t, "gpu2")}, {}, {}};
  try {
    p.add({.kind = WorkKind::collective, .amount = 1e6, .collective = &c}, {});
    FAIL() << "a collective over unconnected GPUs was placed";
  } catch (const PlacementError& e) {
    EXPECT_STREQ(e.field(), "gpus");
    EXPECT_EQ(std::string(e.what()).rfind("these GPUs cannot all reach each other: ", 0), 0u)
        << e.what();
  }
}

// The vocabulary stays free of the engine and of JSON: every header workload.hpp includes,
// directly or through another of the project's headers, is outside sim/engine and names no
// JSON reader.
TEST(Placement, TheWorkloadVocabularyIncludesNoEngineOrJson) {
  const std::string root = testing::source_dir();
  const std::regex include(R"re(#include\s+["<]([^">]+)[">])re");
  std::set<std::string> seen;
  std::vector<std::string> todo = {"sim/work/workload.hpp"};
  while (!todo.empty()) {
    const std::string header = todo.back();
    todo.pop_back();
    if (!seen.insert(header).second) continue;
    std::ifstream in(root + "/" + header);
    ASSERT_TRUE(in) << header;
    std::string line;
    while (std::getline(in, line)) {
      std::smatch m;
      if (!std::regex_search(line, m, include)) continue;
      const std::string named = m[1];
      EXPECT_EQ(named.find("sim/engine/"), std::string::npos) << header << " includes " << named;
      EXPECT_EQ(named.find("json"), std::string::npos) << header << " includes " << named;
      if (std::filesystem::exists(root + "/" + named)) todo.push_back(named);
    }
  }
  EXPECT_GE(seen.size(), 2u);  // workload.hpp and at least sim/coll/collective.hpp
}

}  // namespace
}  // namespace linksim::work
