#include "sim/topo/topology.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <stdexcept>

namespace linksim::topo {

namespace {
struct KindName {
  NodeKind kind;
  std::string_view name;
};
constexpr std::array<KindName, 6> kNodeKinds{{
    {NodeKind::gpu, "gpu"},
    {NodeKind::nvswitch, "nvswitch"},
    {NodeKind::pcie_switch, "pcie_switch"},
    {NodeKind::cpu, "cpu"},
    {NodeKind::nic, "nic"},
    {NodeKind::net_switch, "net_switch"},
}};
}  // namespace

std::string_view to_string(NodeKind kind) {
  for (const auto& k : kNodeKinds) {
    if (k.kind == kind) return k.name;
  }
  return "unknown";
}

std::optional<NodeKind> node_kind_from_string(std::string_view name) {
  for (const auto& k : kNodeKinds) {
    if (k.name == name) return k.kind;
  }
  return std::nullopt;
}

Topology Topology::without_graph() const {
  Topology out;
  out.name = name;
  out.title = title;
  out.description = description;
  out.file = file;
  out.sources = sources;
  out.notes = notes;
  out.instance = instance;
  out.base = base;
  out.collective = collective;
  out.host_launch = host_launch;
  out.host_power = host_power;
  out.host_count = host_count;
  out.cluster = cluster;
  return out;
}

NodeId Topology::add_node(Node node) {
  if (index_.count(node.id) != 0)
    throw std::logic_error("Topology::add_node: duplicate id " + node.id);
  node.ordinal = static_cast<int>(kind_counts_[static_cast<std::size_t>(node.kind)]++);
  index_.emplace(node.id, static_cast<NodeId>(nodes_.size()));
  nodes_.push_back(std::move(node));
  out_.emplace_back();
  return static_cast<NodeId>(nodes_.size() - 1);
}

LinkId Topology::add_link(Link link) {
  if (link.a >= nodes_.size() || link.b >= nodes_.size()) {
    throw std::logic_error("Topology::add_link: endpoint out of range");
  }
  const auto id = static_cast<LinkId>(links_.size());
  links_.push_back(link);
  out_[link.a].push_back(channel(id, true));
  out_[link.b].push_back(channel(id, false));
  return id;
}

void Topology::set_gpu_model(NodeId gpu, GpuModel model) {
  Node& n = nodes_.at(gpu);
  if (n.kind != NodeKind::gpu) throw std::logic_error("set_gpu_model: not a GPU: " + n.id);
  n.model = model.name;
  n.gpu = std::move(model);
}

void Topology::set_link_figures(LinkId link, double bandwidth_Bps, double latency_s) {
  Link& l = links_.at(link);
  l.bandwidth_Bps = bandwidth_Bps;
  l.latency_s = latency_s;
}

void Topology::set_link_generation(LinkId link, int generation, double bandwidth_Bps,
                                   Provenance provenance) {
  Link& l = links_.at(link);
  l.generation = generation;
  l.bandwidth_Bps = bandwidth_Bps;
  l.provenance = std::move(provenance);
  l.bandwidth_range_Bps.reset();
  l.latency_range_s.reset();
}

void Topology::set_cpu(NodeId cpu, CpuInfo info) {
  Node& n = nodes_.at(cpu);
  if (n.kind != NodeKind::cpu) throw std::logic_error("set_cpu: not a CPU: " + n.id);
  n.model = info.model;
  n.cpu = std::move(info);
}

void Topology::set_link_kind(LinkId link, LinkKind kind, int generation, int lanes,
                             double bandwidth_Bps, double latency_s, Provenance provenance) {
  Link& l = links_.at(link);
  l.kind = kind;
  l.generation = generation;
  l.lanes = lanes;
  l.bandwidth_Bps = bandwidth_Bps;
  l.latency_s = latency_s;
  l.provenance = std::move(provenance);
  l.bandwidth_range_Bps.reset();
  l.latency_range_s.reset();
}

std::optional<NodeId> Topology::find(std::string_view id) const {
  auto it = index_.find(id);
  if (it == index_.end()) return std::nullopt;
  return it->second;
}

std::vector<NodeId> Topology::nodes_of(NodeKind kind) const {
  std::vector<NodeId> out;
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    if (nodes_[i].kind == kind) out.push_back(static_cast<NodeId>(i));
  }
  return out;
}

std::size_t Topology::count(NodeKind kind) const {
  return kind_counts_[static_cast<std::size_t>(kind)];
}

NodeId Topology::channel_from(ChannelId channel) const {
  const Link& l = links_.at(link_of(channel));
  return channel % 2 == 0 ? l.a : l.b;
}

NodeId Topology::channel_to(ChannelId channel) const {
  const Link& l = links_.at(link_of(channel));
  return channel % 2 == 0 ? l.b : l.a;
}

std::string Topology::channel_name(ChannelId channel) const {
  const Link& l = links_.at(link_of(channel));
  return fmt::format("{}->{} ({})", nodes_[channel_from(channel)].id,
                     nodes_[channel_to(channel)].id,
                     link_label(l.kind, l.generation, l.lanes, l.width));
}

const std::vector<ChannelId>& Topology::out_channels(NodeId node) const {
  if (node >= out_.size()) throw std::logic_error("Topology::out_channels: bad node");
  return out_[node];
}

std::vector<std::string> channel_names(const Topology& topology) {
  std::vector<std::string> names;
  names.reserve(topology.channel_count());
  for (ChannelId c = 0; c < topology.channel_count(); ++c)
    names.push_back(topology.channel_name(c));
  return names;
}

}  // namespace linksim::topo
