// The NVLS plug-in (sim/coll/algorithms/nvls.cpp): Simple only, 16 channels, all-reduce by hand
// on two H100s behind one NVSwitch. Its eligibility rule: algorithm_registry_test.cpp.
#include <gtest/gtest.h>

#include "sim/coll/algorithm_registry.hpp"
#include "sim/coll/collective_sim.hpp"
#include "tests/coll/test_machines.hpp"
#include "tests/support/simple_copy_share.hpp"

namespace linksim::coll {
namespace {

const CollectiveAlgorithm& nvls() {
  return AlgorithmRegistry::builtin().get(Algorithm::nvls);
}

TEST(NvlsAlgorithmTest, SimpleOnlyOnSixteenChannels) {
  const topo::Topology t = testing::nvswitch_pair("H100-SXM5-80GB", 4, 18);
  const Communicator comm(t, t.nodes_of(topo::NodeKind::gpu));
  Request r;
  r.size_bytes = 1e6;
  EXPECT_EQ(nvls().protocols(comm, r), std::vector<Protocol>{Protocol::simple});
  EXPECT_EQ(nvls().channels(comm, Protocol::simple, 1), 16);  // nvls.cc: 16 on SM90
  EXPECT_EQ(nvls().base_latency_s(Protocol::simple), 0.0);
}

TEST(NvlsAlgorithmTest, AllReduceOnTwoGpusByHand) {
  const topo::Topology t = testing::nvswitch_pair("H100-SXM5-80GB", 4, 18);
  const Communicator comm(t, t.nodes_of(topo::NodeKind::gpu));
  Request r;
  r.op = Op::all_reduce;
  r.size_bytes = 2e9;
  const Outcome o =
      simulate_choice(comm, r, Choice{Algorithm::nvls, Protocol::simple, 16}, Granularity::steps);
  // By steps: each GPU sends and receives S (n+1)/n = 3e9 bytes over its 18 NVLink 4 lanes to
  // the switch (450 GB/s x 0.958 payload), at NVLS efficiency 0.85 x Simple's 0.9338. Latency:
  // one NVLS hop (25 us) plus the link's own 0.2 us; no base latency.
  const double eta = 0.85 * linksim::testing::kSimpleCopyShare;
  EXPECT_NEAR(o.time_s, 25e-6 + 0.2e-6 + 3e9 / eta / (450e9 * 0.958), 1e-9);
}

}  // namespace
}  // namespace linksim::coll
