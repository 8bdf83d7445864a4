// A cluster's first hosts as a machine of their own (sim/topo/cluster_prefix.*): what is kept,
// with its figures, and routes among the kept GPUs as the whole cluster gives them.
#include "sim/topo/cluster_prefix.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

#include "sim/topo/cluster_builder.hpp"
#include "sim/topo/loader.hpp"
#include "sim/topo/routing.hpp"
#include "tests/support/temp_files.hpp"
#include "tests/support/two_gpu_host.hpp"

namespace linksim::topo {
namespace {

using testing::TempDir;
using testing::two_gpu_host_json;

// 40 hosts of the two-GPU host (8 nodes and 8 links each: 1 NVLink, 2 GPU-switch, 2 NIC-switch,
// 2 switch-CPU, 1 storage NIC; 2 compute NICs, so 2 rails), rail-optimised: scalable units of 32
// hosts, so hosts 0-31 reach leaves 0-1 and hosts 32-39 leaves 2-3 (one leaf per rail and unit),
// and 2 spines (one per rail) above the 4 leaves.
Topology forty_hosts(const TempDir& dir) {
  const Topology host = load_topology(dir.write("host.json", two_gpu_host_json()));
  return build_cluster(host, 40, FabricSpec{});
}

// The route's channels as names, which do not depend on the numbering.
std::vector<std::vector<std::string>> path_names(const Topology& t, const Route& r) {
  std::vector<std::vector<std::string>> out;
  for (const Path& p : r.paths) {
    out.emplace_back();
    for (ChannelId c : p.channels)
      out.back().push_back(t.channel_name(c));
  }
  return out;
}

TEST(ClusterPrefix, KeepsTheOccupiedHostsAndTheWholeFabric) {
  TempDir dir;
  const Topology c = forty_hosts(dir);
  ASSERT_EQ(c.nodes().size(), 40u * 8 + 4 + 2);
  const Topology p = cluster_prefix(c, 3);
  // Nodes: 3 hosts x 8 + 4 leaves + 2 spines = 30.
  EXPECT_EQ(p.nodes().size(), 30u);
  // Links: 3 hosts x 8 + 3 hosts x 2 NIC-leaf + 4 leaves x 2 spine uplinks = 24 + 6 + 8 = 38.
  EXPECT_EQ(p.links().size(), 38u);
  EXPECT_EQ(p.count(NodeKind::gpu), 6u);
  // The header and the cluster's description are the whole cluster's.
  EXPECT_EQ(p.name, c.name);
  EXPECT_EQ(p.title, c.title);
  EXPECT_EQ(p.cluster, c.cluster);
  EXPECT_EQ(p.host_count, 40);
  // Every kept node is the cluster's, ordinal and host included, and the kept ids keep their
  // order; every kept link has the cluster's figures.
  NodeId last = 0;
  for (NodeId id = 0; id < p.nodes().size(); ++id) {
    const Node& n = p.node(id);
    const auto in_cluster = c.find(n.id);
    ASSERT_TRUE(in_cluster) << n.id;
    EXPECT_EQ(c.node(*in_cluster).ordinal, n.ordinal) << n.id;
    EXPECT_EQ(c.node(*in_cluster).host, n.host) << n.id;
    if (id > 0) {
      EXPECT_GT(*in_cluster, last) << n.id;
    }
    last = *in_cluster;
  }
  for (const Link& l : p.links()) {
    const NodeId a = *c.find(p.node(l.a).id);
    const NodeId b = *c.find(p.node(l.b).id);
    bool found = false;
    for (const Link& k : c.links()) {
      if (k.a == a && k.b == b && k.bandwidth_Bps == l.bandwidth_Bps &&
          k.latency_s == l.latency_s && k.kind == l.kind) {
        found = true;
      }
    }
    EXPECT_TRUE(found) << p.node(l.a).id << " - " << p.node(l.b).id;
  }
  // An uplink keeps the capacity it has in the whole cluster: leaf 0 carries 32 hosts' NICs of
  // 100 Gb/s (12.5 GB/s) over 2 spines, at InfiniBand's payload efficiency of 0.96:
  // 32 x 12.5 / 2 x 0.96 = 192 GB/s each, though only 3 of those hosts are kept.
  int uplinks = 0;
  for (const Link& l : p.links()) {
    if (p.node(l.a).id == "leaf0" && p.node(l.b).id == "spine0") {
      EXPECT_DOUBLE_EQ(l.bandwidth_Bps, 192e9);
      ++uplinks;
    }
  }
  EXPECT_EQ(uplinks, 1);
}

TEST(ClusterPrefix, RoutesAmongKeptGpusAreTheClusters) {
  TempDir dir;
  const Topology c = forty_hosts(dir);
  const Topology p = cluster_prefix(c, 3);
  const Router whole(c);
  const Router part(p);
  for (const char* a : {"node0/gpu0", "node1/gpu1"}) {
    for (const char* b : {"node0/gpu1", "node2/gpu0", "node2/gpu1"}) {
      const auto rc = whole.route(*c.find(a), *c.find(b));
      const auto rp = part.route(*p.find(a), *p.find(b));
      ASSERT_TRUE(rc && rp) << a << " -> " << b;
      EXPECT_EQ(rc->transport, rp->transport);
      EXPECT_EQ(path_names(c, *rc), path_names(p, *rp)) << a << " -> " << b;
      EXPECT_EQ(rc->bandwidth_Bps(), rp->bandwidth_Bps());
      EXPECT_EQ(rc->latency_s(), rp->latency_s());
    }
  }
}

TEST(ClusterPrefix, HostsForGpusRoundsUpToWholeHosts) {
  TempDir dir;
  const Topology c = forty_hosts(dir);
  EXPECT_EQ(hosts_for_gpus(c, 1), 1);  // ceil(1 / 2)
  EXPECT_EQ(hosts_for_gpus(c, 2), 1);
  EXPECT_EQ(hosts_for_gpus(c, 5), 3);  // ceil(5 / 2)
  EXPECT_EQ(cluster_prefix(c, 40).nodes().size(), c.nodes().size());
  EXPECT_THROW(cluster_prefix(c, 0), std::logic_error);
  EXPECT_THROW(cluster_prefix(c, 41), std::logic_error);
}

}  // namespace
}  // namespace linksim::topo
