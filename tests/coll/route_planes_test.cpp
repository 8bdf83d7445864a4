#include "sim/coll/route_planes.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "sim/coll/algorithm_registry.hpp"
#include "sim/coll/collective_sim.hpp"
#include "sim/coll/communicator.hpp"
#include "sim/coll/lowering.hpp"
#include "sim/topo/loader.hpp"

namespace linksim::coll {
namespace {

using topo::Path;
using topo::Route;

// A route of one path per plane: path k crosses channels {10 k + a, 10 k + b}.
Route planes_route(int planes, topo::ChannelId a, topo::ChannelId b) {
  Route r;
  for (int k = 0; k < planes; ++k) {
    Path p;
    p.channels = {static_cast<topo::ChannelId>(10 * k) + a,
                  static_cast<topo::ChannelId>(10 * k) + b};
    p.share = 1.0 / planes;
    p.latency_s = 1e-6;
    r.paths.push_back(p);
  }
  return r;
}

std::vector<const Route*> pointers(const std::vector<Route>& routes) {
  std::vector<const Route*> out;
  for (const Route& r : routes)
    out.push_back(&r);
  return out;
}

TEST(RoutePlanesTest, ThreeIdenticalPlanesKeepTheFirst) {
  // Two routes (0 -> 1 over channels 0, 1 and 2 -> 3 over 2, 3 in plane 0), each over three
  // planes whose channels are plane 0's plus 10 k, all of capacity 1: one set of three copies.
  const std::vector<Route> routes{planes_route(3, 0, 1), planes_route(3, 2, 3)};
  const std::vector<double> capacity(30, 1.0);
  const PlaneCopies p = find_plane_copies(pointers(routes), capacity);
  EXPECT_EQ(p.copies, 3);
  EXPECT_EQ(p.keep_path, (std::vector<bool>{true, false, false}));
  // Plane k's channel 10 k + c copies plane 0's channel c; channels on no path (4..9, ...) are
  // off the planes.
  const auto off = PlaneCopies::kOffPlanes;
  ASSERT_EQ(p.copy_of.size(), 30u);
  for (topo::ChannelId c = 0; c < 4; ++c) {
    EXPECT_EQ(p.copy_of[c], c);
    EXPECT_EQ(p.copy_of[10 + c], c);
    EXPECT_EQ(p.copy_of[20 + c], c);
  }
  for (topo::ChannelId c : {4u, 9u, 14u, 29u})
    EXPECT_EQ(p.copy_of[c], off) << c;
}

TEST(RoutePlanesTest, TwoSetsOfTwoKeepOnePlaneOfEach) {
  // Four planes; planes 1 and 2 have channels of capacity 2 (like dgx-h100's 4-link switches
  // beside its 5-link ones): sets {0, 3} and {1, 2}, two copies each.
  const std::vector<Route> routes{planes_route(4, 0, 1)};
  std::vector<double> capacity(40, 1.0);
  for (topo::ChannelId c : {10, 11, 20, 21})
    capacity[c] = 2.0;
  const PlaneCopies p = find_plane_copies(pointers(routes), capacity);
  EXPECT_EQ(p.copies, 2);
  EXPECT_EQ(p.keep_path, (std::vector<bool>{true, true, false, false}));
  // Kept planes 0 and 1 copy themselves; plane 3 (channels 30, 31) copies plane 0, plane 2
  // (20, 21) copies plane 1 (10, 11).
  EXPECT_EQ(p.copy_of[0], 0u);
  EXPECT_EQ(p.copy_of[11], 11u);
  EXPECT_EQ(p.copy_of[30], 0u);
  EXPECT_EQ(p.copy_of[31], 1u);
  EXPECT_EQ(p.copy_of[20], 10u);
  EXPECT_EQ(p.copy_of[21], 11u);
}

TEST(RoutePlanesTest, AnyAsymmetryKeepsEveryPath) {
  const std::vector<double> capacity(40, 1.0);
  {
    // Sets of unequal size: planes {0, 1} alike, plane 2 faster. 2 and 1 copies: no factor.
    const std::vector<Route> routes{planes_route(3, 0, 1)};
    std::vector<double> c = capacity;
    c[20] = c[21] = 5.0;
    EXPECT_EQ(find_plane_copies(pointers(routes), c).copies, 1);
  }
  {
    // Unequal shares.
    std::vector<Route> routes{planes_route(2, 0, 1)};
    routes[0].paths[0].share = 0.6;
    routes[0].paths[1].share = 0.4;
    EXPECT_EQ(find_plane_copies(pointers(routes), capacity).copies, 1);
  }
  {
    // Plane 1's correspondence is not one-to-one: route 2 -> 3 reuses plane 1's channel 11,
    // where plane 0 uses channel 3, so two plane-0 flows that do not meet would meet on plane 1.
    std::vector<Route> routes{planes_route(2, 0, 1), planes_route(2, 2, 3)};
    routes[1].paths[1].channels = {12, 11};
    EXPECT_EQ(find_plane_copies(pointers(routes), capacity).copies, 1);
  }
  {
    // A channel on paths of two indices: the planes are not apart.
    std::vector<Route> routes{planes_route(2, 0, 1), planes_route(2, 2, 3)};
    routes[1].paths[0].channels = {2, 11};
    EXPECT_EQ(find_plane_copies(pointers(routes), capacity).copies, 1);
  }
  {
    // One path only, and routes of different path counts.
    const std::vector<Route> one{planes_route(1, 0, 1)};
    EXPECT_EQ(find_plane_copies(pointers(one), capacity).copies, 1);
    const std::vector<Route> mixed{planes_route(2, 0, 1), planes_route(3, 2, 3)};
    EXPECT_EQ(find_plane_copies(pointers(mixed), capacity).copies, 1);
  }
}

TEST(RoutePlanesTest, ShippedNvSwitchMachines) {
  // dgx-a100: 2 NVLinks from every GPU to each of 6 NVSwitches, so every GPU pair's route
  // splits evenly over 6 identical planes. dgx-h100: 5, 4, 4, 5 links to its 4 switches, which
  // its file lists as switches 0 and 3 (5 links) and then 1 and 2 (4 links), so a route's paths
  // come in that order: paths 0 and 1 alike, 2 and 3 alike, and one of each pair is kept.
  // rtx4090-8x (PCIe only): one path per pair, nothing to leave out.
  const topo::Topology a100 = topo::load_topology("dgx-a100");
  const Communicator a(a100, a100.nodes_of(topo::NodeKind::gpu));
  EXPECT_EQ(a.plane_copies().copies, 6);
  EXPECT_EQ(a.plane_copies().keep_path,
            (std::vector<bool>{true, false, false, false, false, false}));
  const topo::Topology h100 = topo::load_topology("dgx-h100");
  const Communicator h(h100, h100.nodes_of(topo::NodeKind::gpu));
  EXPECT_EQ(h.plane_copies().copies, 2);
  EXPECT_EQ(h.plane_copies().keep_path, (std::vector<bool>{true, false, true, false}));
  const topo::Topology pcie = topo::load_topology("rtx4090-8x");
  const Communicator p(pcie, pcie.nodes_of(topo::NodeKind::gpu));
  EXPECT_EQ(p.plane_copies().copies, 1);
}

struct PlaneRun {
  double makespan_s = 0;
  std::size_t flow_starts = 0;
  int plane_copies = 0;
};

// The collective slice by slice (no replay), as a lone run (planes left out) or not.
PlaneRun run_every_slice(const Communicator& comm, const Request& r, const Choice& c, bool alone) {
  engine::Simulation sim(comm.capacities_Bps(), comm.topology().count(topo::NodeKind::gpu));
  const CollectiveAlgorithm& algorithm = AlgorithmRegistry::builtin().get(c.algorithm);
  Lowering l(comm, r, c, algorithm, sim, alone, Granularity::every_slice);
  algorithm.lower(l, sim.add_delay(l.base_latency_s(), {}));
  const engine::Timeline t = sim.run();
  return {t.makespan_s, t.flow_starts, l.plane_copies()};
}

TEST(RoutePlanesTest, LeavingOutIdenticalPlanesChangesNoTime) {
  // Max-min sharing is invariant under swapping identical planes, so the run of one plane per
  // set ends when the run of every plane does (to rounding), with copies times fewer flows.
  // Ring at every protocol (LL and LL128 carry per-rank caps, which the reduced run scales),
  // and Tree, on both machines' planes.
  for (const char* machine : {"dgx-a100", "dgx-h100"}) {
    const topo::Topology t = topo::load_topology(machine);
    const Communicator comm(t, t.nodes_of(topo::NodeKind::gpu));
    const int copies = comm.plane_copies().copies;
    for (const Algorithm a : {Algorithm::ring, Algorithm::tree}) {
      for (const Protocol p : {Protocol::ll, Protocol::ll128, Protocol::simple}) {
        for (const double bytes : {64.0 * 1024, 4.0 * 1024 * 1024, 32.0 * 1024 * 1024}) {
          Request r;
          r.op = Op::all_reduce;
          r.size_bytes = bytes;
          const Choice c{a, p, channels_for(comm, a, p, bytes)};
          const PlaneRun reduced = run_every_slice(comm, r, c, true);
          const PlaneRun full = run_every_slice(comm, r, c, false);
          EXPECT_EQ(reduced.plane_copies, copies);
          EXPECT_EQ(full.plane_copies, 1);
          EXPECT_EQ(full.flow_starts, reduced.flow_starts * static_cast<std::size_t>(copies))
              << machine << " " << to_string(a) << " " << to_string(p) << " " << bytes;
          EXPECT_NEAR(reduced.makespan_s / full.makespan_s, 1.0, 1e-12)
              << machine << " " << to_string(a) << " " << to_string(p) << " " << bytes;
        }
      }
    }
  }
}

TEST(RoutePlanesTest, NvlsKeepsEveryPlane) {
  // NVLS picks the switch ports itself, so its lone runs simulate every plane.
  const topo::Topology t = topo::load_topology("dgx-h100");
  const Communicator comm(t, t.nodes_of(topo::NodeKind::gpu));
  Request r;
  r.op = Op::all_reduce;
  r.size_bytes = 1024 * 1024;
  const Choice c{Algorithm::nvls, Protocol::simple,
                 channels_for(comm, Algorithm::nvls, Protocol::simple, r.size_bytes)};
  EXPECT_EQ(run_every_slice(comm, r, c, true).plane_copies, 1);
}

}  // namespace
}  // namespace linksim::coll
