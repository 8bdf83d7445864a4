// The CollNetDirect plug-in (sim/coll/algorithms/collnet_direct.cpp) and the in-network
// reduction it shares with CollNetChain (sim/coll/in_network_reduction.cpp): where NCCL runs it,
// its channel and protocol rules, and an all-reduce by hand on two nodes of two H100s behind one
// NVSwitch, each GPU with its own NIC, on a fabric with SHARP.
#include <gtest/gtest.h>

#include "sim/coll/algorithm_registry.hpp"
#include "sim/coll/collective_sim.hpp"
#include "sim/topo/cluster_builder.hpp"
#include "sim/topo/loader.hpp"
#include "tests/support/h100_nic_hosts.hpp"
#include "tests/support/temp_files.hpp"

namespace linksim::coll {
namespace {

const CollectiveAlgorithm& by_name(const char* name) {
  return AlgorithmRegistry::builtin().get(*AlgorithmRegistry::builtin().find(name));
}
const CollectiveAlgorithm& direct() {
  return by_name("CollNetDirect");
}

topo::FabricSpec sharp_fabric() {
  topo::FabricSpec spec;  // InfiniBand, rail-optimised, non-blocking
  spec.in_network_reduction = topo::InNetworkReduction::sharp;
  return spec;
}

class CollNetOnTwoNodes : public ::testing::Test {
 protected:
  testing::TempDir dir;
  topo::Topology host = topo::load_topology(dir.write("host.json", testing::nvswitch_nic_host()));
  topo::Topology cluster = topo::build_cluster(host, 2, sharp_fabric());
  Communicator comm{cluster, cluster.nodes_of(topo::NodeKind::gpu)};
};

TEST_F(CollNetOnTwoNodes, SimpleOnlyAllReduceOnly) {
  Request r;
  r.size_bytes = 1e6;
  EXPECT_EQ(direct().why_ineligible(comm), std::nullopt);
  EXPECT_EQ(direct().protocols(comm, r), std::vector<Protocol>{Protocol::simple});
  EXPECT_EQ(direct().operations(), std::vector<Op>{Op::all_reduce});
  EXPECT_EQ(direct().base_latency_s(Protocol::simple), 0.0);
  // tuning.cc hwLatencies, CollNetDirect Simple: NVLINK 3.7, PCI 3.7, NET 31 us; LL, LL128 0.
  EXPECT_DOUBLE_EQ(direct().hop_latency_s(Protocol::simple, HwClass::nvlink), 3.7e-6);
  EXPECT_DOUBLE_EQ(direct().hop_latency_s(Protocol::simple, HwClass::pci), 3.7e-6);
  EXPECT_DOUBLE_EQ(direct().hop_latency_s(Protocol::simple, HwClass::net), 31e-6);
  EXPECT_EQ(direct().hop_latency_s(Protocol::ll, HwClass::net), 0.0);
}

// enqueue.cc's CollNet channel tuning with H = 2 heads, 640 threads, 512 B a thread: a channel
// stands for 640 x 2 x 512 = 655,360 B. From the communicator's M channels (here 8: NCCL's
// search across nodes finds 2 x 48 GB/s on the two 50 GB/s NICs, duplicates them to 4 x 24,
// and runs twice that), drop one while the message is under nc x 655,360 and nc is above 16,
// then above 8 (halving the threshold when leaving 12), 4 (leaving 6), 2 (leaving 3) and 1.
TEST_F(CollNetOnTwoNodes, ChannelRule) {
  ASSERT_EQ(comm.max_channels(), 8);
  // 1e9 is not under 8 x 655,360 = 5,242,880: 8.
  EXPECT_EQ(direct().channels(comm, Protocol::simple, 1e9), 8);
  // 4 MiB = 4,194,304: under 8 x 655,360 (not above 16 or 8: no drop there), so 7; under
  // 7 x 655,360 = 4,587,520: 6; 4,194,304 < 6 x 655,360 = 3,932,160 fails: 6 channels.
  EXPECT_EQ(direct().channels(comm, Protocol::simple, 4 * 1048576.0), 6);
  // 1 MiB = 1,048,576: as far as 6, which it is still under; leaving 6 the threshold halves (a
  // channel 327,680 B): 5, then 4 (1,048,576 < 5 x 327,680 = 1,638,400; stop above 4); then
  // 4 x 327,680 = 1,310,720: 3; 1,048,576 < 3 x 327,680 = 983,040 fails: 3 channels.
  EXPECT_EQ(direct().channels(comm, Protocol::simple, 1048576.0), 3);
  // 1 kB: down to 1.
  EXPECT_EQ(direct().channels(comm, Protocol::simple, 1e3), 1);
}

TEST_F(CollNetOnTwoNodes, AllReduceByHand) {
  Request r;
  r.op = Op::all_reduce;
  r.size_bytes = 1e9;
  const Outcome o =
      simulate_choice(comm, r, Choice{direct().id(), Protocol::simple, 10}, Granularity::steps);
  // H = 2 heads a node (both GPUs have a NIC), ppn = 2. Each head owns S / H = 500 MB.
  // Network: each head sends its 500 MB up its NIC into leaf 0 or 1 (its rail's leaf: both
  // nodes' heads of a rail meet there, so the leaf is the top of the tree and no spine is
  // crossed), and gets 500 MB back: 500e6 / (400 Gb/s x 0.96 = 48 GB/s) = 10.42 ms each way.
  // NVLink: each GPU sends the other head its part (scatter, 500 MB) and the other GPU its own
  // result (broadcast, 500 MB): 1 GB out and 1 GB in at 450 x 0.958 x 0.9338 GB/s: 2.48 ms,
  // hidden under the network.
  // Latency (the fill, then the bulk flows): one network step (31 us) and the route between
  // two heads (1.13 us: four PCIe hops of 0.25 us, one switch of 0.13 us), NCCL's arity term
  // 2 x (ppn - 1) x 0.4 us, and the scatter's NVLink step: max(3.7 us, 3 x 1 us net overhead)
  // plus the NVLink route's own latency.
  ASSERT_EQ(comm.rings().size(), 2u);
  EXPECT_NEAR(comm.route(2, 0).latency_s(), 1.13e-6, 1e-12);
  const double nvlink_s = comm.route(1, 0).latency_s();
  EXPECT_NEAR(o.time_s, 31e-6 + 1.13e-6 + 0.8e-6 + 3.7e-6 + nvlink_s + 500e6 / 48e9, 1e-10);
  // nccl-tests' busbw: algbw x 2 (n - 1) / n = 1e9 / t x 1.5, about 143.5 GB/s: 1.5 x what the
  // two NICs of a node carry each way (96 GB/s), where a ring could reach only the NICs' 96.
  EXPECT_GT(o.busbw_Bps, 143e9);
  EXPECT_LT(o.busbw_Bps, 144e9);
}

// A fat-tree with one host per leaf: the two heads of a rail meet at the spines, so the leaves'
// uplinks are the tree's. A leaf sends each rail's part (S / H = 500 MB) up once, 1 GB for its
// two rails, spread over its 2 uplinks: 500 MB each. At 2:1 an uplink is (2 NICs x 50 GB/s / 2)
// / 2 spines = 25 GB/s x 0.96 = 24 GB/s: 20.83 ms, twice the NIC's 10.42 ms, so the uplinks
// bind; at 4:1, 12 GB/s: 41.67 ms. The latencies are the same, so the times differ by
// 500e6 / 12e9 - 500e6 / 24e9 = 20.83 ms.
TEST(CollNetDirectAlgorithmTest, OversubscribedUplinksStillBind) {
  testing::TempDir dir;
  const topo::Topology host =
      topo::load_topology(dir.write("host.json", testing::nvswitch_nic_host()));
  auto time_at = [&](double oversubscription) {
    topo::FabricSpec spec = sharp_fabric();
    spec.shape = topo::FabricShape::fat_tree;
    spec.hosts_per_leaf = 1;
    spec.spines = 2;
    spec.oversubscription = oversubscription;
    const topo::Topology cluster = topo::build_cluster(host, 2, spec);
    const Communicator comm(cluster, cluster.nodes_of(topo::NodeKind::gpu));
    Request r;
    r.size_bytes = 1e9;
    return simulate_choice(comm, r, Choice{direct().id(), Protocol::simple, 10}, Granularity::steps)
        .time_s;
  };
  const double two = time_at(2);
  const double four = time_at(4);
  EXPECT_NEAR(four - two, 500e6 / 12e9 - 500e6 / 24e9, 1e-5);
}

TEST(CollNetDirectAlgorithmTest, IneligibleReasons) {
  testing::TempDir dir;
  const topo::Topology host =
      topo::load_topology(dir.write("host.json", testing::nvswitch_nic_host()));
  const Communicator one(host, host.nodes_of(topo::NodeKind::gpu));
  EXPECT_EQ(*direct().why_ineligible(one),
            "CollNetDirect needs several nodes on a fabric that reduces in-network (SHARP), an "
            "NVSwitch inside the node and at most 8 GPUs per node; here: a single node, the "
            "fabric does not reduce in-network (its \"in_network_reduction\" is not \"sharp\")");
  const topo::Topology plain = topo::build_cluster(host, 2, topo::FabricSpec{});
  const Communicator two(plain, plain.nodes_of(topo::NodeKind::gpu));
  EXPECT_EQ(*direct().why_ineligible(two),
            "CollNetDirect needs several nodes on a fabric that reduces in-network (SHARP), an "
            "NVSwitch inside the node and at most 8 GPUs per node; here: the fabric does not "
            "reduce in-network (its \"in_network_reduction\" is not \"sharp\")");
  // No NVSwitch: CollNetChain still runs, CollNetDirect does not (tuning.cc).
  const topo::Topology pcie_host =
      topo::load_topology(dir.write("pcie.json", testing::pcie_nic_host()));
  const topo::Topology pcie = topo::build_cluster(pcie_host, 2, sharp_fabric());
  const Communicator pcie_comm(pcie, pcie.nodes_of(topo::NodeKind::gpu));
  EXPECT_EQ(*direct().why_ineligible(pcie_comm),
            "CollNetDirect needs several nodes on a fabric that reduces in-network (SHARP), an "
            "NVSwitch inside the node and at most 8 GPUs per node; here: no NVSwitch inside the "
            "node");
  EXPECT_EQ(by_name("CollNetChain").why_ineligible(pcie_comm), std::nullopt);
}

// Selection stays by simulated time: CollNet is a candidate only where the fabric has SHARP.
TEST_F(CollNetOnTwoNodes, ACandidateOnlyWithSharp) {
  Request r;
  r.op = Op::all_reduce;
  r.size_bytes = 1e9;
  auto offers = [&](const Communicator& c, const char* name) {
    int found = 0;
    for (const Choice& ch : candidate_choices(c, r)) {
      if (ch.algorithm == by_name(name).id()) ++found;
    }
    return found;
  };
  EXPECT_EQ(offers(comm, "CollNetDirect"), 1);  // Simple only
  EXPECT_EQ(offers(comm, "CollNetChain"), 1);
  const topo::Topology plain = topo::build_cluster(host, 2, topo::FabricSpec{});
  const Communicator without(plain, plain.nodes_of(topo::NodeKind::gpu));
  EXPECT_EQ(offers(without, "CollNetDirect"), 0);
  EXPECT_EQ(offers(without, "CollNetChain"), 0);
  // Other operations: none.
  r.op = Op::all_gather;
  EXPECT_EQ(offers(comm, "CollNetDirect"), 0);
}

}  // namespace
}  // namespace linksim::coll
