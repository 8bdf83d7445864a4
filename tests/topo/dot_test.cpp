// `linksim topo dot` (sim/topo/dot.hpp): every node and link once, hosts, sockets and the fabric
// as boxes, NICs by what the instance has, one label per kind of link and host.
#include "sim/topo/dot.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <set>

#include "sim/topo/loader.hpp"

namespace linksim::topo {
namespace {

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

// Node statements: `"id" [label=`; edges: `"a" -- "b" [`, invisible ones apart.
void expect_every_node_and_link_once(const Topology& t, const std::string& dot) {
  // A node statement starts its line; an edge's lower end is preceded by " -- ".
  for (const auto& n : t.nodes()) {
    std::size_t statements = 0;
    const std::string text = "\"" + n.id + "\" [label=";
    for (auto at = dot.find(text); at != std::string::npos; at = dot.find(text, at + 1)) {
      if (dot[at - 1] == ' ' && dot.compare(at - 4, 4, " -- ") != 0) ++statements;
    }
    EXPECT_EQ(statements, 1u) << n.id;
  }
  const std::regex edge(R"re(\n  "[^"]+" -- "[^"]+" \[(.*)\];)re");
  std::size_t edges = 0;
  for (std::sregex_iterator it(dot.begin(), dot.end(), edge), end; it != end; ++it) {
    if ((*it)[1].str().find("style=invis") == std::string::npos) ++edges;
  }
  EXPECT_EQ(edges, t.links().size());
  EXPECT_EQ(std::count(dot.begin(), dot.end(), '{'), std::count(dot.begin(), dot.end(), '}'));
}

TEST(Dot, OneMachineHasASocketBoxPerCpuAndItsGpusOnOneRow) {
  const Topology t = load_topology("dgx-h100");
  const std::string dot = to_dot(t);
  expect_every_node_and_link_once(t, dot);
  // Two sockets, no host boxes on one machine.
  EXPECT_EQ(count_of(dot, "subgraph cluster_socket_"), 2u);
  EXPECT_EQ(count_of(dot, "cluster_host"), 0u);
  EXPECT_NE(dot.find("{rank=same; \"gpu0\"; \"gpu1\"; \"gpu2\"; \"gpu3\"; \"gpu4\"; \"gpu5\"; "
                     "\"gpu6\"; \"gpu7\";}"),
            std::string::npos);
  // One label per kind of link: the DGX H100's 32 GPU-NVSwitch NVLinks are NVLink 4 x5 or x4,
  // so two labels.
  EXPECT_EQ(count_of(dot, "[label=\"NVLink"), 2u);
}

TEST(Dot, AClusterStacksHostsAboveItsFabricAndNamesEfa) {
  const Topology t = load_topology("aws-p5-x2");
  const std::string dot = to_dot(t);
  expect_every_node_and_link_once(t, dot);
  EXPECT_EQ(count_of(dot, "subgraph cluster_host0 {"), 1u);
  EXPECT_EQ(count_of(dot, "subgraph cluster_host1 {"), 1u);
  EXPECT_EQ(count_of(dot, "subgraph cluster_fabric {"), 1u);
  // Host 1 below host 0: one invisible edge from host 0's first NVSwitch to host 1's first CPU.
  EXPECT_NE(dot.find("\"node0/nvswitch0\" -- \"node1/cpu0\" [style=invis"), std::string::npos);
  // p5's NICs are EFA (its instance's network), not the base machine's ConnectX-7.
  EXPECT_EQ(count_of(dot, "ConnectX"), 0u);
  EXPECT_GT(count_of(dot, "EFA"), 0u);
  // Network links dashed, written from the NIC down to the fabric.
  EXPECT_NE(dot.find("style=dashed"), std::string::npos);
}

TEST(Dot, TheSameMachineGivesTheSameBytes) {
  const Topology t = load_topology("aws-p4d-x2");
  EXPECT_EQ(to_dot(t), to_dot(t));
}

}  // namespace
}  // namespace linksim::topo
