// Clusters built from a host and a fabric (sim/topo/cluster_builder.*, cluster_loader.*):
// names, hosts, rails, the fabric's links and their figures, and the bad input of
// docs/cluster-format.md.
#include "sim/topo/cluster_builder.hpp"

#include <gtest/gtest.h>

#include "sim/core/error.hpp"
#include "sim/topo/cluster_loader.hpp"
#include "sim/topo/fabric_summary.hpp"
#include "sim/topo/loader.hpp"
#include "tests/support/temp_files.hpp"
#include "tests/support/thrown_message.hpp"
#include "tests/support/two_gpu_host.hpp"

namespace linksim::topo {
namespace {

using testing::cluster_json;
using testing::TempDir;
using testing::two_gpu_host_json;

const Link& link_between(const Topology& t, const std::string& a, const std::string& b) {
  for (const Link& l : t.links()) {
    if ((t.node(l.a).id == a && t.node(l.b).id == b) ||
        (t.node(l.a).id == b && t.node(l.b).id == a)) {
      return l;
    }
  }
  throw std::runtime_error("no link " + a + " - " + b);
}

TEST(ClusterBuilder, RailOptimisedNamesHostsRailsAndLinks) {
  TempDir dir;
  const Topology host = load_topology(dir.write("host.json", two_gpu_host_json()));
  FabricSpec spec;  // InfiniBand, rail-optimised, non-blocking
  const Topology c = build_cluster(host, 2, spec);
  // Per host: 2 GPUs, 2 switches, 1 CPU, 3 NICs = 8 nodes; the fabric: one leaf per rail in the
  // one scalable unit (2 leaves) and, as there are two leaves, 2 spines (the rail count).
  EXPECT_EQ(c.nodes().size(), 2u * 8 + 2 + 2);
  EXPECT_EQ(c.host_count, 2);
  ASSERT_TRUE(c.is_cluster());
  EXPECT_EQ(c.cluster->rails, 2);  // the storage NIC is no rail
  EXPECT_EQ(c.cluster->leaves, 2);
  EXPECT_EQ(c.cluster->spines, 2);
  const NodeId g = *c.find("node1/gpu0");
  EXPECT_EQ(c.host_of(g), 1);
  EXPECT_EQ(c.node(g).ordinal, 2);  // GPUs number across hosts: node1's first is GPU 2
  EXPECT_EQ(c.node(*c.find("node1/nic1")).nic->rail, 1);
  EXPECT_EQ(c.node(*c.find("node1/mgmt")).nic->rail, -1);
  EXPECT_EQ(c.host_of(*c.find("leaf0")), kFabricHost);
  // NIC k of both hosts on leaf k: 100 Gb/s = 12.5 GB/s line x 0.96 InfiniBand payload = 12 GB/s.
  EXPECT_DOUBLE_EQ(link_between(c, "node0/nic1", "leaf1").bandwidth_Bps, 12.5e9 * 0.96);
  EXPECT_DOUBLE_EQ(link_between(c, "node1/nic1", "leaf1").bandwidth_Bps, 12.5e9 * 0.96);
  EXPECT_EQ(link_between(c, "node0/nic1", "leaf1").provenance.basis, "effective");
  // Leaf uplinks: 2 NICs x 12.5 GB/s down, / oversubscription 1, over 2 spines = 12.5 GB/s
  // line each, x 0.96.
  EXPECT_DOUBLE_EQ(link_between(c, "leaf0", "spine1").bandwidth_Bps, 12.5e9 * 0.96);
  // NIC link latency: the NIC's (0 for InfiniBand) + half a switch (130 ns / 2).
  EXPECT_DOUBLE_EQ(link_between(c, "node0/nic0", "leaf0").latency_s, 0.13e-6 / 2);
}

TEST(ClusterBuilder, FatTreeOversubscriptionNarrowsTheUplinks) {
  TempDir dir;
  const Topology host = load_topology(dir.write("host.json", two_gpu_host_json()));
  FabricSpec spec;
  spec.shape = FabricShape::fat_tree;
  spec.oversubscription = 2;
  spec.hosts_per_leaf = 2;
  spec.spines = 1;
  const Topology c = build_cluster(host, 4, spec);
  EXPECT_EQ(c.cluster->leaves, 2);  // 4 hosts, 2 per leaf
  // Both NICs of node2 on its leaf (leaf 1).
  EXPECT_NO_THROW(link_between(c, "node2/nic0", "leaf1"));
  EXPECT_NO_THROW(link_between(c, "node2/nic1", "leaf1"));
  // Leaf down: 2 hosts x 2 NICs x 12.5 GB/s = 50 GB/s; up: 50 / 2 = 25 GB/s line, x 0.96.
  EXPECT_DOUBLE_EQ(link_between(c, "leaf1", "spine0").bandwidth_Bps, 25e9 * 0.96);
  const FabricSummary s = summarize_fabric(c);
  // Per host: 2 NICs x 12 GB/s = 24 GB/s, 12 GB/s per GPU. Bisection: two hosts' 48 GB/s, or
  // half the uplinks (2 x 24 GB/s / 2 = 24 GB/s): 24 GB/s.
  EXPECT_DOUBLE_EQ(s.per_host_scale_out_Bps, 2 * 12e9);
  EXPECT_DOUBLE_EQ(s.per_gpu_scale_out_Bps, 12e9);
  EXPECT_DOUBLE_EQ(s.bisection_Bps, 24e9);
  EXPECT_EQ(s.hops_worst, 3);
}

TEST(ClusterBuilder, ThreeTiersAddPodSpinesAndCores) {
  TempDir dir;
  const Topology host = load_topology(dir.write("host.json", two_gpu_host_json()));
  FabricSpec spec;
  spec.shape = FabricShape::three_tier;
  spec.hosts_per_leaf = 1;
  spec.leaves_per_pod = 2;
  spec.spines = 1;
  const Topology c = build_cluster(host, 4, spec);
  // 4 leaves, in 2 pods of 2, one spine per pod, one core.
  EXPECT_EQ(c.cluster->leaves, 4);
  EXPECT_EQ(c.cluster->spines, 2);
  EXPECT_EQ(c.cluster->cores, 1);
  // Pod spine down: 2 leaves x 25 GB/s up each = 50 GB/s line (before the 0.96).
  EXPECT_DOUBLE_EQ(link_between(c, "spine1", "core0").bandwidth_Bps, 50e9 * 0.96);
}

TEST(ClusterBuilder, DefaultFabricFollowsTheInstanceThenTheNics) {
  const Topology p4d = load_topology("aws-p4d.24xlarge");
  EXPECT_EQ(default_fabric(p4d).kind, FabricKind::efa);  // instance network_kind
  // AWS's EFA generations, as its EFA page lists the instances.
  EXPECT_EQ(default_fabric(load_topology("aws-p5.48xlarge")).kind, FabricKind::efa_v2);
  EXPECT_EQ(default_fabric(load_topology("aws-p5en.48xlarge")).kind, FabricKind::efa_v3);
  EXPECT_EQ(default_fabric(load_topology("aws-p6-b200.48xlarge")).kind, FabricKind::efa_v4);
  const Topology dgx = load_topology("dgx-h100");
  EXPECT_EQ(default_fabric(dgx).kind, FabricKind::infiniband);
  EXPECT_EQ(default_fabric(dgx).shape, FabricShape::rail_optimized);
}

TEST(ClusterBuilder, ScaleOutResizesAClusterOnItsOwnFabric) {
  const Topology su = load_topology("h100-fat-tree-2to1");
  EXPECT_EQ(su.host_count, 16);
  const Topology four = scale_out(su, 4);
  EXPECT_EQ(four.host_count, 4);
  EXPECT_EQ(four.cluster->fabric.oversubscription, 2);
  EXPECT_EQ(four.cluster->host_machine, "dgx-h100");
}

TEST(ClusterBuilder, EveryShippedClusterLoadsWithSourcesAndItsRails) {
  const auto files = shipped_cluster_files();
  ASSERT_GE(files.size(), 8u);
  for (const auto& f : files) {
    const Topology c = load_topology(f);
    EXPECT_TRUE(c.is_cluster()) << f;
    // Two machines at least: two hosts, or one NVLink domain of several (gb200-nvl72).
    EXPECT_GE(c.host_count * c.cluster->host->host_count, 2) << f;
    EXPECT_FALSE(c.sources.empty()) << f;
    EXPECT_EQ(c.count(NodeKind::gpu),
              static_cast<std::size_t>(c.host_count * c.cluster->gpus_per_host))
        << f;
  }
}

// The bad input of docs/cluster-format.md: each names the file and the JSON path.
class ClusterBadInput : public ::testing::Test {
 protected:
  TempDir dir;
  std::string host = dir.write("host.json", two_gpu_host_json());

  std::string message_of(const std::string& text) {
    return testing::thrown_message<InputError>([&] { load_topology(dir.write("c.json", text)); });
  }
};

TEST_F(ClusterBadInput, AHostThatIsItselfAClusterIsRefused) {
  const std::string inner = dir.write("inner.json", cluster_json(host, 2, "{}"));
  EXPECT_EQ(message_of(cluster_json(inner, 2, "{}")),
            dir.path() + "/c.json: at /cluster/host: the host \"" + inner +
                "\" is itself a cluster; a cluster's host must be one machine");
}

// Refused before the host is parsed: parsing a cluster loads its host, so a cluster naming
// itself recursed until the stack ran out (SIGSEGV, no message).
TEST_F(ClusterBadInput, AClusterNamingItselfAsHostIsRefused) {
  const std::string self = dir.path() + "/c.json";
  EXPECT_EQ(message_of(cluster_json("c.json", 2, "{}")),
            self +
                ": at /cluster/host: the host \"c.json\" is this cluster file itself; a "
                "cluster's host must be one machine");
  EXPECT_EQ(message_of(cluster_json(self, 2, "{}")),
            self + ": at /cluster/host: the host \"" + self +
                "\" is this cluster file itself; a cluster's host must be one machine");
}

// a.json's host is b.json, whose host is a.json: b is a cluster, so a refuses it unread.
TEST_F(ClusterBadInput, TwoClustersNamingEachOtherAreRefused) {
  dir.write("b.json", cluster_json("a.json", 2, "{}"));
  const std::string a = dir.write("a.json", cluster_json("b.json", 2, "{}"));
  EXPECT_EQ(testing::thrown_message<InputError>([&] { load_topology(a); }),
            a + ": at /cluster/host: the host \"b.json\" is itself a cluster; a cluster's host "
                "must be one machine");
}

// A machine whose base is a cluster could name that cluster's host file: m.json's base is
// c2.json, whose host is m.json.
TEST_F(ClusterBadInput, AMachineWhoseBaseIsAClusterIsRefused) {
  dir.write("c2.json", cluster_json("m.json", 2, "{}"));
  const std::string m = dir.write("m.json", R"({"title": "m", "base": "c2.json"})");
  EXPECT_EQ(testing::thrown_message<InputError>([&] { load_topology(m); }),
            m + ": at /base: base \"c2.json\" is a cluster; a machine's base must be one machine");
}

// An empty host named the folder ("is a folder; expected a file") and not the cluster file;
// /dev/zero was read for a GiB before it was refused.
TEST_F(ClusterBadInput, AnEmptyOrSpecialHostIsBlamedOnTheHostField) {
  EXPECT_EQ(message_of(cluster_json("", 2, "{}")),
            dir.path() +
                "/c.json: at /cluster/host: expected a machine file or a shipped "
                "machine's name, got \"\"");
  EXPECT_EQ(message_of(cluster_json("/dev/zero", 2, "{}")),
            dir.path() +
                "/c.json: at /cluster/host: host \"/dev/zero\" (/dev/zero) is not a "
                "regular file; expected a machine file");
}

TEST_F(ClusterBadInput, RailsMustMatchTheComputeNics) {
  const std::string m = message_of(R"({"title": "t", "cluster": {"host": ")" + host +
                                   R"(", "nodes": 2, "rails": 3}})");
  EXPECT_NE(m.find("at /cluster/rails"), std::string::npos) << m;
  EXPECT_NE(m.find("has 2 compute NICs, so 2 rails, not 3"), std::string::npos) << m;
}

TEST_F(ClusterBadInput, OversubscriptionMustBePositive) {
  const std::string m = message_of(cluster_json(host, 2, R"({"oversubscription": 0})"));
  EXPECT_NE(m.find("at /cluster/fabric/oversubscription"), std::string::npos) << m;
  EXPECT_NE(m.find("must be more than 0"), std::string::npos) << m;
}

TEST_F(ClusterBadInput, AGpuNoNicReachesIsUnreachable) {
  // gpu1 hangs off NVLink only: no PCIe path to any NIC.
  std::string text = two_gpu_host_json();
  const std::string pcie = R"({"for": {"g": "0..1"}, "a": "gpu{g}", "b": "sw{g}")";
  text.replace(text.find(pcie), pcie.size(),
               R"({"for": {"g": "0..0"}, "a": "gpu{g}", "b": "sw{g}")");
  const std::string lonely = dir.write("lonely.json", text);
  const std::string m = message_of(cluster_json(lonely, 2, "{}"));
  EXPECT_NE(m.find("at /cluster"), std::string::npos) << m;
  EXPECT_NE(m.find("GPU gpu1 of \"lonely\" reaches no compute NIC"), std::string::npos) << m;
}

TEST_F(ClusterBadInput, NodeCountsAreBounded) {
  for (const char* n : {"0", "65537"}) {
    const std::string m =
        message_of(R"({"title": "t", "cluster": {"host": ")" + host + R"(", "nodes": )" + n + "}}");
    EXPECT_NE(m.find("at /cluster/nodes: expected a node count from 1 to 65536"), std::string::npos)
        << m;
  }
}

TEST_F(ClusterBadInput, NicRoleAndNetworkAreChecked) {
  std::string text = two_gpu_host_json();
  text.replace(text.find(R"("role": "storage")"), 17, R"("role": "backup")");
  const std::string m = message_of(text);
  EXPECT_NE(m.find("at /nodes/4/role: unknown NIC role \"backup\"; expected compute or storage"),
            std::string::npos)
      << m;
  std::string net = two_gpu_host_json();
  net.replace(net.find(R"("role": "storage")"), 17, R"("network": "myrinet")");
  const std::string n = message_of(net);
  EXPECT_NE(n.find("at /nodes/4/network: unknown network \"myrinet\"; expected one of "
                   "infiniband, roce, efa, efa_v2, efa_v3, efa_v4, tcpx, tcpxo"),
            std::string::npos)
      << n;
}

TEST_F(ClusterBadInput, ScalingAMachineWithoutNicsIsRefused) {
  const Topology pcie = load_topology("rtx4090-2x");
  try {
    scale_out(pcie, 2);
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("has no compute NICs to join a fabric"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace linksim::topo

namespace linksim::topo {
namespace {

// "in_network_reduction" (docs/cluster-format.md): off by default, "sharp" on InfiniBand only.
TEST_F(ClusterBadInput, InNetworkReductionIsSharpOnInfinibandOnly) {
  const auto file = [&](const std::string& fabric) {
    return load_topology(dir.write("ok.json", cluster_json(host, 2, fabric)));
  };
  EXPECT_EQ(file("{}").cluster->fabric.in_network_reduction, InNetworkReduction::none);
  EXPECT_EQ(file(R"({"in_network_reduction": "none"})").cluster->fabric.in_network_reduction,
            InNetworkReduction::none);
  EXPECT_EQ(file(R"({"kind": "infiniband", "in_network_reduction": "sharp"})")
                .cluster->fabric.in_network_reduction,
            InNetworkReduction::sharp);
  // Resizing a cluster keeps its fabric, SHARP included.
  EXPECT_EQ(scale_out(file(R"({"in_network_reduction": "sharp"})"), 4)
                .cluster->fabric.in_network_reduction,
            InNetworkReduction::sharp);
  const std::string file_name = dir.path() + "/c.json";
  EXPECT_EQ(
      message_of(cluster_json(host, 2, R"({"kind": "roce", "in_network_reduction": "sharp"})")),
      file_name +
          ": at /cluster/fabric/in_network_reduction: in-network reduction \"sharp\" needs "
          "an infiniband fabric (SHARP runs in Quantum InfiniBand switches); this fabric is "
          "roce");
  EXPECT_EQ(message_of(cluster_json(host, 2, R"({"in_network_reduction": "yes"})")),
            file_name +
                ": at /cluster/fabric/in_network_reduction: unknown in-network reduction "
                "\"yes\"; expected one of none, sharp");
}

// "plugin_latency" (what the network plugin reports to NCCL) overrides the kind's, survives a
// resize, and an absurd one is refused at its JSON path.
TEST_F(ClusterBadInput, PluginLatencyOverridesTheKindsAndIsChecked) {
  const auto file = [&](const std::string& fabric) {
    return load_topology(dir.write("ok.json", cluster_json(host, 2, fabric)));
  };
  EXPECT_FALSE(file(R"({"kind": "efa"})").cluster->fabric.plugin_latency_s);
  EXPECT_DOUBLE_EQ(
      *file(R"({"kind": "efa", "plugin_latency": "150 us"})").cluster->fabric.plugin_latency_s,
      150e-6);
  EXPECT_DOUBLE_EQ(*scale_out(file(R"({"kind": "efa", "plugin_latency": "150 us"})"), 4)
                        .cluster->fabric.plugin_latency_s,
                   150e-6);
  EXPECT_EQ(message_of(cluster_json(host, 2, R"({"plugin_latency": "5 ms"})")),
            dir.path() +
                "/c.json: at /cluster/fabric/plugin_latency: latency \"5 ms\" is "
                "absurd; expected 0 or more and at most 1 ms");
}

// The shipped SuperPOD scalable units say SHARP (NVIDIA's reference architectures); the cloud
// clusters do not.
TEST(ClusterBuilder, ShippedSuperpodsReduceInNetwork) {
  for (const char* name : {"dgx-h100-superpod-su", "dgx-a100-superpod-su"}) {
    EXPECT_EQ(load_topology(name).cluster->fabric.in_network_reduction, InNetworkReduction::sharp)
        << name;
  }
  for (const char* name :
       {"aws-p5-x2", "azure-nd-h100-v5-x4", "gcp-a3-mega-x2", "h100-fat-tree-2to1"}) {
    EXPECT_EQ(load_topology(name).cluster->fabric.in_network_reduction, InNetworkReduction::none)
        << name;
  }
}

}  // namespace
}  // namespace linksim::topo
