// Routing and nvidia-smi classes on small hand-built machines.
#include "sim/topo/routing.hpp"

#include <gtest/gtest.h>

#include "sim/topo/cluster_loader.hpp"
#include "sim/topo/copy_model.hpp"
#include "sim/topo/loader.hpp"
#include "sim/topo/shipped_topologies.hpp"

namespace linksim::topo {
namespace {

Topology parse(const char* text) {
  return parse_topology(Json::parse(text), "test.json");
}

// gpu0..1 behind one switch (sw) on cpu0, plus an NVLink bridge of `lanes` links.
Topology two_gpus(const char* model, int lanes) {
  Json doc = Json::parse(R"({
    "title": "t", "nodes": [
      {"id": "gpu", "kind": "gpu", "count": 2, "model": "A100-SXM4-80GB"},
      {"id": "cpu0", "kind": "cpu", "vendor": "intel"},
      {"id": "sw", "kind": "pcie_switch"}],
    "links": [
      {"for": {"g": "0..1"}, "a": "gpu{g}", "b": "sw", "kind": "pcie", "generation": 4},
      {"a": "sw", "b": "cpu0", "kind": "pcie", "generation": 4}]})");
  doc["nodes"][0]["model"] = model;
  if (lanes > 0) {
    doc["links"].push_back(Json{
        {"a", "gpu0"}, {"b", "gpu1"}, {"kind", "nvlink"}, {"generation", 3}, {"lanes", lanes}});
  }
  return parse_topology(doc, "test.json");
}

TEST(RoutingTest, DirectNvlinkIsOnePathAtTheBundleRate) {
  const Topology t = two_gpus("A100-SXM4-80GB", 4);
  const Router r(t);
  auto route = r.route(0, 1);
  ASSERT_TRUE(route);
  EXPECT_EQ(route->transport, Transport::nvlink);
  ASSERT_EQ(route->paths.size(), 1u);
  // Link 3 is the NVLink bridge; gpu0 is its "a" end, so the channel is 2*3 = 6.
  EXPECT_EQ(route->paths[0].channels, std::vector<ChannelId>{6});
  // 4 links * 25 GB/s = 100 GB/s per direction.
  EXPECT_DOUBLE_EQ(route->bandwidth_Bps(), 100e9);
  EXPECT_DOUBLE_EQ(route->latency_s(), 0.2e-6);
  EXPECT_EQ(r.path_class(0, 1), PathClass::nvlink);
  EXPECT_EQ(r.nvlink_count(0, 1), 4);
}

TEST(RoutingTest, PcieP2pThroughOneSwitchIsPix) {
  const Topology t = two_gpus("A100-SXM4-80GB", 0);
  const Router r(t);
  auto route = r.route(0, 1);
  ASSERT_TRUE(route);
  EXPECT_EQ(route->transport, Transport::pcie_p2p);
  // gpu0->sw is channel 0 (link 0, a->b); sw->gpu1 is channel 3 (link 1, b->a).
  EXPECT_EQ(route->paths[0].channels, (std::vector<ChannelId>{0, 3}));
  // Two PCIe hops of 0.25 us each.
  EXPECT_DOUBLE_EQ(route->latency_s(), 0.5e-6);
  EXPECT_DOUBLE_EQ(route->bandwidth_Bps(), 32e9);
  EXPECT_EQ(r.path_class(0, 1), PathClass::pix);
}

TEST(RoutingTest, GeforceCardsBounceThroughHostMemory) {
  const Topology t = two_gpus("RTX-4090", 0);
  const Router r(t);
  EXPECT_FALSE(r.p2p_possible(0, 1));
  auto route = r.route(0, 1);
  ASSERT_TRUE(route);
  EXPECT_EQ(route->transport, Transport::host_bounce);
  EXPECT_EQ(route->bounce_cpu, std::optional<NodeId>(2));
  // gpu0->sw (0), sw->cpu0 (4), cpu0->sw (5), sw->gpu1 (3).
  EXPECT_EQ(route->paths[0].channels, (std::vector<ChannelId>{0, 4, 5, 3}));
  // nvidia-smi still prints the PCIe class: one switch between them.
  EXPECT_EQ(r.path_class(0, 1), PathClass::pix);
}

TEST(RoutingTest, DisablingP2pForcesTheBounce) {
  const Topology t = two_gpus("A100-SXM4-80GB", 0);
  const Router r(t);
  RouteOptions no_p2p;
  no_p2p.allow_p2p = false;
  EXPECT_EQ(r.route(0, 1, no_p2p)->transport, Transport::host_bounce);
}

TEST(RoutingTest, NvswitchPlanesSplitTrafficByLinkCount) {
  const Topology t = parse(R"({
    "title": "t", "nodes": [
      {"id": "gpu", "kind": "gpu", "count": 2, "model": "H100-SXM5-80GB"},
      {"id": "nvs", "kind": "nvswitch", "count": 2}],
    "links": [
      {"for": {"g": "0..1"}, "a": "gpu{g}", "b": "nvs0", "kind": "nvlink", "generation": 4, "lanes": 5},
      {"for": {"g": "0..1"}, "a": "gpu{g}", "b": "nvs1", "kind": "nvlink", "generation": 4, "lanes": 4}]})");
  const Router r(t);
  auto route = r.route(0, 1);
  ASSERT_TRUE(route);
  EXPECT_EQ(route->transport, Transport::nvlink);
  ASSERT_EQ(route->paths.size(), 2u);
  // Bottlenecks 5*25 = 125 GB/s and 4*25 = 100 GB/s; shares 125/225 = 5/9 and 100/225 = 4/9.
  EXPECT_DOUBLE_EQ(route->paths[0].share, 5.0 / 9.0);
  EXPECT_DOUBLE_EQ(route->paths[1].share, 4.0 / 9.0);
  // Both planes finish together: 125e9 / (5/9) = 225 GB/s.
  EXPECT_DOUBLE_EQ(route->bandwidth_Bps(), 225e9);
  EXPECT_EQ(r.nvlink_count(0, 1), 9);
}

TEST(RoutingTest, NoDirectNvlinkRelaysThroughANeighbour) {
  const Topology t = parse(R"({
    "title": "t", "nodes": [{"id": "gpu", "kind": "gpu", "count": 3, "model": "A100-SXM4-80GB"}],
    "links": [
      {"a": "gpu0", "b": "gpu1", "kind": "nvlink", "generation": 3, "lanes": 4},
      {"a": "gpu1", "b": "gpu2", "kind": "nvlink", "generation": 3, "lanes": 2}]})");
  const Router r(t);
  auto route = r.route(0, 2);
  ASSERT_TRUE(route);
  EXPECT_EQ(route->transport, Transport::nvlink_relay);
  EXPECT_EQ(route->relays, std::vector<NodeId>{1});
  // Bottleneck is the 2-link hop: 50 GB/s; two hops of 0.2 us.
  EXPECT_DOUBLE_EQ(route->bandwidth_Bps(), 50e9);
  EXPECT_DOUBLE_EQ(route->latency_s(), 0.4e-6);
  // nvidia-smi shows no NVLink between them (and, with no PCIe here, SYS).
  EXPECT_EQ(r.path_class(0, 2), PathClass::sys);
}

TEST(RoutingTest, PcieClassesFollowTheTree) {
  // cpu0: host bridge 0 -> upper switch up0 -> leaf switches l0 {gpu0, gpu1}, l1 {gpu2};
  //       host bridge 0 directly -> gpu5; host bridge 1 directly -> gpu3.
  // cpu1 (other socket, UPI) -> gpu4.
  const Topology t = parse(R"({
    "title": "t", "nodes": [
      {"id": "gpu", "kind": "gpu", "count": 6, "model": "A100-PCIE-80GB"},
      {"id": "cpu", "kind": "cpu", "count": 2, "vendor": "intel", "socket": "{i}"},
      {"id": "up0", "kind": "pcie_switch"}, {"id": "l", "kind": "pcie_switch", "count": 2}],
    "links": [
      {"a": "up0", "b": "cpu0", "kind": "pcie", "generation": 4, "host_bridge": 0},
      {"for": {"s": "0..1"}, "a": "l{s}", "b": "up0", "kind": "pcie", "generation": 4},
      {"for": {"g": "0..1"}, "a": "gpu{g}", "b": "l0", "kind": "pcie", "generation": 4},
      {"a": "gpu2", "b": "l1", "kind": "pcie", "generation": 4},
      {"a": "gpu5", "b": "cpu0", "kind": "pcie", "generation": 4, "host_bridge": 0},
      {"a": "gpu3", "b": "cpu0", "kind": "pcie", "generation": 4, "host_bridge": 1},
      {"a": "gpu4", "b": "cpu1", "kind": "pcie", "generation": 4},
      {"a": "cpu0", "b": "cpu1", "kind": "upi", "lanes": 2}]})");
  const Router r(t);
  EXPECT_EQ(r.path_class(0, 0), PathClass::self);
  EXPECT_EQ(r.path_class(0, 1), PathClass::pix);   // one switch (l0)
  EXPECT_EQ(r.path_class(0, 2), PathClass::pxb);   // l0, up0, l1
  EXPECT_EQ(r.path_class(0, 5), PathClass::phb);   // through cpu0, same host bridge 0
  EXPECT_EQ(r.path_class(0, 3), PathClass::node);  // through cpu0, host bridges 0 and 1
  EXPECT_EQ(r.path_class(0, 4), PathClass::sys);   // across the UPI link
  EXPECT_EQ(r.path_class(3, 5), PathClass::node);
  // Intel sockets: no peer-to-peer across UPI, so gpu0 -> gpu4 bounces through host memory.
  EXPECT_TRUE(r.p2p_possible(0, 3));
  EXPECT_FALSE(r.p2p_possible(0, 4));
  EXPECT_EQ(r.route(0, 4)->transport, Transport::host_bounce);
  EXPECT_EQ(r.host_socket(4), std::optional<NodeId>(7));  // cpu1 is node 7
  // GPU to host memory is plain PCIe: gpu0 -> l0 -> up0 -> cpu0, three hops at 32 GB/s.
  auto to_host = r.route(0, 6);
  EXPECT_EQ(to_host->transport, Transport::pcie);
  EXPECT_EQ(to_host->paths[0].channels.size(), 3u);
  EXPECT_DOUBLE_EQ(to_host->bandwidth_Bps(), 32e9);
}

TEST(RoutingTest, CpuThatForbidsP2pForcesTheBounce) {
  const Topology t = parse(R"({
    "title": "t", "nodes": [
      {"id": "gpu", "kind": "gpu", "count": 2, "model": "A100-PCIE-80GB"},
      {"id": "cpu0", "kind": "cpu", "vendor": "amd", "pcie_p2p": false}],
    "links": [{"for": {"g": "0..1"}, "a": "gpu{g}", "b": "cpu0", "kind": "pcie", "generation": 4,
               "host_bridge": "{g}"}]})");
  const Router r(t);
  EXPECT_EQ(r.path_class(0, 1), PathClass::node);
  EXPECT_FALSE(r.p2p_possible(0, 1));
  EXPECT_EQ(r.route(0, 1)->transport, Transport::host_bounce);
}

// Routes are cached per (src, dst, options) on first use: a repeated request is served from
// the cache (routes_computed stays put) and equals what a fresh router computes.
void expect_same_route(const Route& a, const Route& b) {
  EXPECT_EQ(a.src, b.src);
  EXPECT_EQ(a.dst, b.dst);
  EXPECT_EQ(a.transport, b.transport);
  EXPECT_EQ(a.bounce_cpu, b.bounce_cpu);
  EXPECT_EQ(a.relays, b.relays);
  ASSERT_EQ(a.paths.size(), b.paths.size());
  for (std::size_t i = 0; i < a.paths.size(); ++i) {
    EXPECT_EQ(a.paths[i].channels, b.paths[i].channels);
    EXPECT_EQ(a.paths[i].share, b.paths[i].share);
    EXPECT_EQ(a.paths[i].latency_s, b.paths[i].latency_s);
    EXPECT_EQ(a.paths[i].bottleneck_Bps, b.paths[i].bottleneck_Bps);
  }
}

TEST(RoutingTest, SecondLookupIsServedFromTheCache) {
  const Topology t = two_gpus("A100-SXM4-80GB", 0);
  const Router r(t);
  EXPECT_EQ(r.routes_computed(), 0u);  // nothing is built up front
  const auto first = r.route(0, 1);
  EXPECT_EQ(r.routes_computed(), 1u);
  const auto second = r.route(0, 1);
  EXPECT_EQ(r.routes_computed(), 1u);  // not recomputed
  ASSERT_TRUE(first && second);
  expect_same_route(*second, *first);
  const Router fresh(t);
  expect_same_route(*second, *fresh.route(0, 1));
  // And both are the route worked by hand above: gpu0->sw (0), sw->gpu1 (3), 2 x 0.25 us.
  EXPECT_EQ(second->paths[0].channels, (std::vector<ChannelId>{0, 3}));
  EXPECT_DOUBLE_EQ(second->latency_s(), 0.5e-6);
}

TEST(RoutingTest, CacheKeysOnDirectionAndOptions) {
  const Topology t = two_gpus("A100-SXM4-80GB", 0);
  const Router r(t);
  RouteOptions no_p2p;
  no_p2p.allow_p2p = false;
  EXPECT_EQ(r.route(0, 1)->transport, Transport::pcie_p2p);
  EXPECT_EQ(r.route(0, 1, no_p2p)->transport, Transport::host_bounce);  // its own entry
  // The reverse direction is its own route: gpu1->sw is channel 2 (link 1 a->b), sw->gpu0 is 1.
  EXPECT_EQ(r.route(1, 0)->paths[0].channels, (std::vector<ChannelId>{2, 1}));
  EXPECT_EQ(r.routes_computed(), 3u);
  // A copy of the router shares the cache.
  const Router copy = r;
  EXPECT_EQ(copy.route(0, 1, no_p2p)->transport, Transport::host_bounce);
  EXPECT_EQ(r.routes_computed(), 3u);
}

TEST(RoutingTest, UnreachablePairsAreCachedToo) {
  const Topology t = parse(R"({
    "title": "t", "nodes": [{"id": "gpu", "kind": "gpu", "count": 2, "model": "A100-SXM4-80GB"},
      {"id": "cpu0", "kind": "cpu", "vendor": "intel"}],
    "links": [
      {"a": "gpu0", "b": "gpu1", "kind": "nvlink", "generation": 3, "lanes": 4},
      {"a": "gpu0", "b": "cpu0", "kind": "pcie", "generation": 4}]})");
  const Router r(t);
  // gpu1 reaches cpu0 only through gpu0, and no route relays host traffic through a GPU.
  EXPECT_FALSE(r.route(1, 2));
  EXPECT_FALSE(r.route(1, 2));
  EXPECT_EQ(r.routes_computed(), 1u);
}

TEST(RoutingTest, NcclRelaysThroughOneGpuAndCopiesThroughNone) {
  // DGX-1V hybrid cube-mesh: GPU0 has NVLink to 1, 2, 3 (NV2) and 4 (NV2); GPU7 to 3 (NV1),
  // 4 (NV2), 5 and 6. No direct link 0-7; the common neighbours 3 and 4 relay.
  const Topology t = load_topology("dgx-1v");
  const Router r(t);
  const auto g = t.nodes_of(NodeKind::gpu);
  const auto nccl = r.route(g[0], g[7]);
  ASSERT_TRUE(nccl);
  EXPECT_EQ(nccl->transport, Transport::nvlink_relay);
  EXPECT_EQ(nccl->relays, (std::vector<NodeId>{g[3], g[4]}));
  ASSERT_EQ(nccl->paths.size(), 2u);
  for (const auto& p : nccl->paths)
    EXPECT_EQ(p.channels.size(), 2u);  // GPU -> relay -> GPU: one intermediate GPU
  // Bottlenecks: via 3 min(NV2 50, NV1 25) = 25 GB/s, via 4 min(50, 50) = 50 GB/s; shares 1/3
  // and 2/3, finishing together at 25 / (1/3) = 75 GB/s.
  EXPECT_DOUBLE_EQ(nccl->bandwidth_Bps(), 75e9);
  // cudaMemcpyPeer does not relay: GPU0 (plx0, socket 0) and GPU7 (plx3, socket 1) are across
  // Intel QPI, which carries no peer-to-peer, so even with peer access the copy is staged
  // through GPU0's socket.
  const auto copy = r.route(g[0], g[7], copy_route_options(true));
  ASSERT_TRUE(copy);
  EXPECT_EQ(copy->transport, Transport::host_bounce);
  EXPECT_TRUE(copy->relays.empty());
  EXPECT_EQ(copy->bounce_cpu, r.host_socket(g[0]));
  // A direct NVLink pair is the same route for both.
  EXPECT_EQ(r.route(g[0], g[4], copy_route_options(true))->transport, Transport::nvlink);
}

TEST(RoutingTest, NoRouteRelaysThroughTwoGpus) {
  // The seed's 2x4 NVLink ladder: GPU0's neighbours are 1, 2, 3 and GPU6's are 4, 5, 7, so
  // 0 -> 6 would need two relays (0-2-4-6). NCCL takes the PCIe path instead: GPU0 hangs off
  // NUMA 3 and GPU6 off NUMA 5 (other socket), AMD xGMI carries peer-to-peer.
  const Topology t = load_topology("seed-dgx-a100-mesh");
  const Router r(t);
  const auto g = t.nodes_of(NodeKind::gpu);
  const auto far = r.route(g[0], g[6]);
  ASSERT_TRUE(far);
  EXPECT_EQ(far->transport, Transport::pcie_p2p);
  EXPECT_TRUE(far->relays.empty());
  // 0 -> 4 has one common neighbour, GPU2 (0-2 NV4, 2-4 NV2): one relay, 50 GB/s.
  const auto near = r.route(g[0], g[4]);
  ASSERT_TRUE(near);
  EXPECT_EQ(near->transport, Transport::nvlink_relay);
  EXPECT_EQ(near->relays, std::vector<NodeId>{g[2]});
  EXPECT_DOUBLE_EQ(near->bandwidth_Bps(), 50e9);
  // Peer access off: no peer path of any kind, NVLink neighbours included.
  RouteOptions off;
  off.allow_p2p = false;
  EXPECT_EQ(r.route(g[0], g[1], off)->transport, Transport::host_bounce);
}

// Across a cluster's network the default router shares the switch-to-switch paths among the NIC
// pairs on the same two switches; the per-pair router searches from NIC to NIC. Every shipped
// cluster, cut to 8 hosts (two leaves on the 2:1 fat tree, four hosts a leaf, so paths through
// its spines and ECMP's pick among them are compared too; across rails on the rail-optimised
// ones): the same routes, channel for channel, from every GPU of the first host to every GPU of
// the others.
TEST(RoutingTest, SharedSwitchPathsGiveThePerPairNetworkRoutes) {
  int compared = 0;
  for (const std::string& file : shipped_cluster_files()) {
    const Topology whole = load_topology(file);
    const Topology t = whole.host_count > 8 ? scale_out(whole, 8) : whole;
    const Router shared(t);
    const Router fresh(t, SearchSharing::per_pair);
    const auto gpus = t.nodes_of(NodeKind::gpu);
    for (NodeId a : gpus) {
      if (t.host_of(a) != 0) continue;
      for (NodeId b : gpus) {
        if (t.host_of(b) == 0) continue;
        const auto expected = fresh.route(a, b);
        const auto got = shared.route(a, b);
        ASSERT_EQ(got.has_value(), expected.has_value()) << file;
        if (!expected) continue;
        expect_same_route(*got, *expected);
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 1000);
}

// One search per source (the default) against one search per pair (the original method): the
// same route, channel for channel, for every ordered pair of endpoints and every option.
TEST(RoutingTest, PerSourceSearchesGiveThePerPairRoutes) {
  for (const char* name : {"dgx-h100", "dgx-a100", "dgx-1v", "seed-dgx-a100-mesh", "rtx2080ti-2x",
                           "pcie-switch-8gpu", "mi300x-8x", "aws-p4d.24xlarge"}) {
    const Topology t = load_topology(name);
    const Router shared(t);
    const Router fresh(t, SearchSharing::per_pair);
    std::vector<NodeId> ends;
    for (NodeId n = 0; n < t.nodes().size(); ++n) {
      const NodeKind k = t.node(n).kind;
      if (k == NodeKind::gpu || k == NodeKind::cpu || k == NodeKind::nic) ends.push_back(n);
    }
    for (const bool p2p : {true, false}) {
      for (const bool relay : {true, false}) {
        RouteOptions o;
        o.allow_p2p = p2p;
        o.allow_nvlink_relay = relay;
        for (NodeId a : ends) {
          const auto batch = shared.routes_from(a, ends, o);
          for (std::size_t j = 0; j < ends.size(); ++j) {
            const auto expected = fresh.route(a, ends[j], o);
            ASSERT_EQ(batch[j].has_value(), expected.has_value()) << name;
            if (!expected) continue;
            expect_same_route(*batch[j], *expected);
            expect_same_route(*shared.route(a, ends[j], o), *expected);
          }
          EXPECT_EQ(shared.host_socket(a), fresh.host_socket(a)) << name;
        }
      }
    }
  }
}

}  // namespace
}  // namespace linksim::topo
