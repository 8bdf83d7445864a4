#include "sim/topo/dot.hpp"

#include <fmt/format.h>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/graphviz.hpp>
#include <sstream>

#include "sim/core/units.hpp"

namespace linksim::topo {
namespace {

struct VertexLabel {
  std::string id;
  std::string label;
  std::string shape;
};
struct EdgeLabel {
  std::string label;
  std::string style;
};
using DotGraph =
    boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, VertexLabel, EdgeLabel>;

std::string shape_of(NodeKind k) {
  switch (k) {
    case NodeKind::gpu:
      return "box";
    case NodeKind::nvswitch:
      return "hexagon";
    case NodeKind::pcie_switch:
      return "diamond";
    case NodeKind::cpu:
      return "ellipse";
    case NodeKind::nic:
      return "cds";
    case NodeKind::net_switch:
      return "octagon";
  }
  return "box";
}

}  // namespace

std::string to_dot(const Topology& topo) {
  DotGraph g;
  for (const auto& n : topo.nodes()) {
    std::string label = n.id;
    if (!n.model.empty()) label += "\\n" + n.model;
    boost::add_vertex(VertexLabel{n.id, label, shape_of(n.kind)}, g);
  }
  for (const auto& l : topo.links()) {
    const std::string label =
        fmt::format("{}\\n{}", link_label(l.kind, l.generation, l.lanes, l.width),
                    units::format_bandwidth(l.bandwidth_Bps));
    boost::add_edge(l.a, l.b, EdgeLabel{label, l.kind == LinkKind::nvlink ? "bold" : "solid"}, g);
  }
  std::ostringstream out;
  boost::dynamic_properties dp;
  dp.property("node_id", boost::get(&VertexLabel::id, g));
  dp.property("label", boost::get(&VertexLabel::label, g));
  dp.property("shape", boost::get(&VertexLabel::shape, g));
  dp.property("label", boost::get(&EdgeLabel::label, g));
  dp.property("style", boost::get(&EdgeLabel::style, g));
  boost::write_graphviz_dp(out, g, dp);
  return out.str();
}

}  // namespace linksim::topo
