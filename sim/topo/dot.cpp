#include "sim/topo/dot.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "sim/core/units.hpp"

namespace linksim::topo {
namespace {

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

// A DOT double-quoted string: backslashes and quotes escaped; "\n" stays DOT's line break.
std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      out += "\\\"";
    } else if (c == '\\' && !(i + 1 < text.size() && text[i + 1] == 'n')) {
      out += "\\\\";
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// `text` broken at spaces into lines of at most `width` characters where it can be (DOT's \n).
std::string wrapped(const std::string& text, std::size_t width) {
  std::string out, line;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(start, end - start);
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      out += line + "\\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
    start = end + 1;
  }
  return out + line;
}

// Rows top to bottom: CPUs, PCIe switches, NICs, GPUs, NVSwitches, then the fabric's leaves
// and spines. Each edge is written from its upper end to its lower end with that many rows
// between (minlen), which is what puts every kind of node on its own row.
int tier_of(const Topology& topo, NodeId id, const std::set<NodeId>& leaves) {
  switch (topo.node(id).kind) {
    case NodeKind::cpu:
      return 0;
    case NodeKind::pcie_switch:
      return 1;
    case NodeKind::nic:
      return 2;
    case NodeKind::gpu:
      return 3;
    case NodeKind::nvswitch:
      return 4;
    case NodeKind::net_switch:
      return topo.host_of(id) != kFabricHost ? 4 : leaves.contains(id) ? 5 : 6;
  }
  return 3;
}

std::string node_label(const Topology& topo, const Node& n) {
  // The id without its host prefix: the host's box says which host.
  const auto slash = n.id.rfind('/');
  std::string label = slash == std::string::npos ? n.id : n.id.substr(slash + 1);
  std::string model = n.model;
  if (n.kind == NodeKind::nic && topo.instance && !topo.instance->network.empty()) {
    model = topo.instance->network;
  }
  if (!model.empty()) label += "\\n" + wrapped(model, 22);
  return label;
}

// Each node's CPU socket: the CPU whose PCIe tree (PCIe links through switches, not through
// other CPUs or NVLink) reaches it first in CPU order; nullopt for nodes under no CPU.
std::vector<std::optional<NodeId>> sockets(const Topology& topo) {
  std::vector<std::optional<NodeId>> socket(topo.nodes().size());
  std::vector<std::vector<std::pair<NodeId, LinkKind>>> adjacent(topo.nodes().size());
  for (const auto& l : topo.links()) {
    adjacent[l.a].emplace_back(l.b, l.kind);
    adjacent[l.b].emplace_back(l.a, l.kind);
  }
  for (NodeId cpu : topo.nodes_of(NodeKind::cpu)) {
    std::vector<NodeId> frontier{cpu};
    socket[cpu] = cpu;
    while (!frontier.empty()) {
      const NodeId at = frontier.back();
      frontier.pop_back();
      for (const auto& [next, kind] : adjacent[at]) {
        const NodeKind k = topo.node(next).kind;
        if (kind != LinkKind::pcie || socket[next] || k == NodeKind::cpu ||
            k == NodeKind::net_switch || topo.host_of(next) != topo.host_of(cpu)) {
          continue;
        }
        socket[next] = cpu;
        // GPUs and NICs are leaves of the tree; switches lead on.
        if (k == NodeKind::pcie_switch) frontier.push_back(next);
      }
    }
  }
  return socket;
}

std::string node_line(const Topology& topo, NodeId id, const std::string& indent) {
  const Node& n = topo.node(id);
  return fmt::format("{}{} [label={}, shape={}];\n", indent, quoted(n.id),
                     quoted(node_label(topo, n)), shape_of(n.kind));
}

// `{rank=same; a; b; ...}`: one row. Their order left to right comes from the edges above them,
// written in node order under `ordering=out`.
std::string row(const Topology& topo, const std::vector<NodeId>& ids, const std::string& indent) {
  if (ids.size() < 2) return "";
  std::string out = indent + "{rank=same;";
  for (NodeId id : ids)
    out += " " + quoted(topo.node(id).id) + ";";
  return out + "}\n";
}

std::string host_box(const Topology& topo, int host,
                     const std::vector<std::optional<NodeId>>& socket) {
  std::vector<NodeId> mine;
  for (NodeId id = 0; id < topo.nodes().size(); ++id) {
    if (topo.host_of(id) == host) mine.push_back(id);
  }
  std::string out;
  const bool many = topo.host_count > 1;
  const std::string in = many ? "    " : "  ";
  if (many) {
    out += fmt::format("  subgraph cluster_host{} {{\n    label={};\n    style=rounded;\n", host,
                       quoted(fmt::format("host {}", host)));
  }
  std::map<NodeId, std::vector<NodeId>> by_socket;
  std::vector<NodeId> outside, gpus, nics, nvswitches;
  for (NodeId id : mine) {
    const NodeKind k = topo.node(id).kind;
    if (k == NodeKind::gpu) gpus.push_back(id);
    if (k == NodeKind::nic) nics.push_back(id);
    if (k == NodeKind::nvswitch) nvswitches.push_back(id);
    if (socket[id]) {
      by_socket[*socket[id]].push_back(id);
    } else {
      outside.push_back(id);
    }
  }
  for (const auto& [cpu, members] : by_socket) {
    out +=
        fmt::format("{}subgraph cluster_socket_{} {{\n{}  label={};\n{}  style=dashed;\n", in, cpu,
                    in, quoted(fmt::format("socket: {}", node_label(topo, topo.node(cpu)))), in);
    for (NodeId id : members)
      out += node_line(topo, id, in + "  ");
    out += in + "}\n";
  }
  for (NodeId id : outside)
    out += node_line(topo, id, in);
  out += row(topo, gpus, in) + row(topo, nics, in) + row(topo, nvswitches, in);
  if (many) out += "  }\n";
  return out;
}

// The first node of a host's last row (its first NVSwitch, else NIC, else GPU) and of its first
// (its first CPU, else any node): what ties one host's box below the previous one.
std::string bottom_of(const Topology& topo, int host) {
  for (NodeKind k : {NodeKind::nvswitch, NodeKind::nic, NodeKind::gpu}) {
    for (NodeId id : topo.nodes_of(k)) {
      if (topo.host_of(id) == host) return topo.node(id).id;
    }
  }
  for (NodeId id = 0; id < topo.nodes().size(); ++id) {
    if (topo.host_of(id) == host) return topo.node(id).id;
  }
  return "";
}
std::string top_of(const Topology& topo, int host) {
  for (NodeId id : topo.nodes_of(NodeKind::cpu)) {
    if (topo.host_of(id) == host) return topo.node(id).id;
  }
  return bottom_of(topo, host);
}

}  // namespace

std::string to_dot(const Topology& topo) {
  std::string out =
      "graph G {\n"
      "  graph [newrank=true, ordering=out, nodesep=0.15, ranksep=0.5, fontname=\"Helvetica\", "
      "fontsize=11];\n"
      "  node [fontname=\"Helvetica\", fontsize=10, margin=\"0.05,0.03\"];\n"
      "  edge [fontname=\"Helvetica\", fontsize=7];\n";
  const auto socket = sockets(topo);
  // Fabric switches reached from NICs are the leaves; the others (spines) sit a row lower.
  std::set<NodeId> leaves;
  for (const auto& l : topo.links()) {
    for (auto [sw, other] : {std::pair{l.a, l.b}, std::pair{l.b, l.a}}) {
      if (topo.host_of(sw) == kFabricHost && topo.node(other).kind == NodeKind::nic) {
        leaves.insert(sw);
      }
    }
  }
  for (int h = 0; h < topo.host_count; ++h)
    out += host_box(topo, h, socket);
  std::vector<NodeId> fabric;
  for (NodeId id = 0; id < topo.nodes().size(); ++id) {
    if (topo.host_of(id) == kFabricHost) fabric.push_back(id);
  }
  if (!fabric.empty()) {
    out += "  subgraph cluster_fabric {\n    label=\"fabric\";\n    style=rounded;\n";
    std::vector<NodeId> leaf_row, spine_row;
    for (NodeId id : fabric) {
      out += node_line(topo, id, "    ");
      (leaves.contains(id) ? leaf_row : spine_row).push_back(id);
    }
    out += row(topo, leaf_row, "    ") + row(topo, spine_row, "    ") + "  }\n";
  }
  // Each kind of link is labelled once per host (and once in the network): 32 NVLink labels in
  // one row are what made a DGX picture thousands of pixels wide.
  std::set<std::pair<int, std::string>> labelled;
  // Edges from the upper end, in node order: with `ordering=out`, each node's children then sit
  // left to right in id order (pcisw0 before pcisw1, and so each GPU under its switch).
  std::vector<const Link*> links;
  for (const auto& l : topo.links())
    links.push_back(&l);
  const auto ends = [&](const Link& l) {
    return tier_of(topo, l.a, leaves) <= tier_of(topo, l.b, leaves) ? std::pair{l.a, l.b}
                                                                    : std::pair{l.b, l.a};
  };
  std::stable_sort(links.begin(), links.end(),
                   [&](const Link* x, const Link* y) { return ends(*x) < ends(*y); });
  for (const Link* link : links) {
    const Link& l = *link;
    const bool network = topo.host_of(l.a) != topo.host_of(l.b);
    const std::string style = l.kind == LinkKind::nvlink ? "bold" : network ? "dashed" : "solid";
    const std::string text =
        fmt::format("{}\\n{}", link_label(l.kind, l.generation, l.lanes, l.width),
                    units::format_bandwidth(l.bandwidth_Bps));
    const int where = network ? kFabricHost : topo.host_of(l.a);
    const bool first = labelled.insert({where, text}).second;
    NodeId upper = l.a, lower = l.b;
    if (tier_of(topo, upper, leaves) > tier_of(topo, lower, leaves)) std::swap(upper, lower);
    const int rows = tier_of(topo, lower, leaves) - tier_of(topo, upper, leaves);
    const std::string placement = rows == 0 ? "constraint=false, "
                                  : network ? std::string()
                                            : fmt::format("minlen={}, ", rows);
    out += fmt::format("  {} -- {} [{}{}style={}];\n", quoted(topo.node(upper).id),
                       quoted(topo.node(lower).id),
                       first ? "label=" + quoted(text) + ", " : std::string(), placement, style);
  }
  // Hosts one above the other, the fabric below them: side by side, two hosts are already too
  // wide to read.
  for (int h = 0; h + 1 < topo.host_count; ++h) {
    out += fmt::format("  {} -- {} [style=invis, weight=10];\n", quoted(bottom_of(topo, h)),
                       quoted(top_of(topo, h + 1)));
  }
  return out + "}\n";
}

}  // namespace linksim::topo
