// The CollNetChain plug-in (sim/coll/algorithms/collnet_chain.cpp): its rules and an all-reduce
// by hand on two nodes of two H100s, each GPU with its own NIC, on a fabric with SHARP.
#include <gtest/gtest.h>

#include "sim/coll/algorithm_registry.hpp"
#include "sim/coll/collective_sim.hpp"
#include "sim/topo/cluster_builder.hpp"
#include "sim/topo/loader.hpp"
#include "tests/support/h100_nic_hosts.hpp"
#include "tests/support/temp_files.hpp"

namespace linksim::coll {
namespace {

const CollectiveAlgorithm& chain() {
  return AlgorithmRegistry::builtin().get(*AlgorithmRegistry::builtin().find("CollNetChain"));
}

class CollNetChainOnTwoNodes : public ::testing::Test {
 protected:
  static topo::FabricSpec sharp_fabric() {
    topo::FabricSpec spec;
    spec.in_network_reduction = topo::InNetworkReduction::sharp;
    return spec;
  }
  testing::TempDir dir;
  topo::Topology host = topo::load_topology(dir.write("host.json", testing::nvswitch_nic_host()));
  topo::Topology cluster = topo::build_cluster(host, 2, sharp_fabric());
  Communicator comm{cluster, cluster.nodes_of(topo::NodeKind::gpu)};
};

TEST_F(CollNetChainOnTwoNodes, RulesAndConstants) {
  Request r;
  r.size_bytes = 1e6;
  EXPECT_EQ(chain().why_ineligible(comm), std::nullopt);
  EXPECT_EQ(chain().protocols(comm, r), std::vector<Protocol>{Protocol::simple});
  EXPECT_EQ(chain().operations(), std::vector<Op>{Op::all_reduce});
  EXPECT_EQ(chain().base_latency_s(Protocol::simple), 0.0);
  // tuning.cc hwLatencies, CollNetChain Simple: NVLINK 2.8, PCI 2.8, NET 30 us.
  EXPECT_DOUBLE_EQ(chain().hop_latency_s(Protocol::simple, HwClass::nvlink), 2.8e-6);
  EXPECT_DOUBLE_EQ(chain().hop_latency_s(Protocol::simple, HwClass::net), 30e-6);
  // NCCL's Ring/Tree channel rule with 640 threads and 512 B a thread: a channel stands for
  // 327,680 B. From the communicator's 8 (NCCL's search across nodes: two 50 GB/s NICs give
  // 2 x 48, duplicated to 4 x 24, run twice: 8): 1e9 keeps 8; 1 MB drops while 1e6 < nc x
  // 327,680, to 3 (3 x 327,680 = 983,040 is not above 1e6); 1 kB drops to 1.
  ASSERT_EQ(comm.max_channels(), 8);
  EXPECT_EQ(chain().channels(comm, Protocol::simple, 1e9), 8);
  EXPECT_EQ(chain().channels(comm, Protocol::simple, 1e6), 3);
  EXPECT_EQ(chain().channels(comm, Protocol::simple, 1e3), 1);
  // Ineligible without SHARP, with the shared reason.
  const topo::Topology plain = topo::build_cluster(host, 2, topo::FabricSpec{});
  const Communicator without(plain, plain.nodes_of(topo::NodeKind::gpu));
  EXPECT_EQ(*chain().why_ineligible(without),
            "CollNetChain needs several nodes on a fabric that reduces in-network (SHARP) and at "
            "most 8 GPUs per node; here: the fabric does not reduce in-network (its "
            "\"in_network_reduction\" is not \"sharp\")");
}

TEST_F(CollNetChainOnTwoNodes, AllReduceByHand) {
  Request r;
  r.op = Op::all_reduce;
  r.size_bytes = 1e9;
  const Outcome o =
      simulate_choice(comm, r, Choice{chain().id(), Protocol::simple, 10}, Granularity::steps);
  // Two chains a node (one per NIC), each of two GPUs headed by the NIC's GPU, each carrying
  // S / H = 500 MB: every chain hop moves 500 MB up and 500 MB down, so on NVLink a GPU sends
  // 1 GB (down its own chain, up the other's): 2.54 ms, hidden. Each head sends 500 MB up its
  // NIC and receives 500 MB: 500e6 / 48e9 = 10.42 ms.
  // Latency: up the chain (one NVLink step: max(2.8 us, 3 x 1 us net overhead) = 3 us, plus the
  // NVLink route), one network step (30 us) and the route between heads (1.13 us), and back
  // down but the last hop, which the sends pay and which ends before the network flows do.
  const double nvlink_s = comm.route(1, 0).latency_s();
  EXPECT_NEAR(o.time_s, 3e-6 + nvlink_s + 30e-6 + 1.13e-6 + 500e6 / 48e9, 1e-10);
}

}  // namespace
}  // namespace linksim::coll
