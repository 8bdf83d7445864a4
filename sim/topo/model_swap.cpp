#include "sim/topo/model_swap.hpp"

#include <fmt/format.h>

#include <string>
#include <vector>

#include "sim/topo/gpu_model.hpp"
#include "sim/topo/link_kind.hpp"

namespace linksim::topo {
namespace {

// The figures a link of this kind, generation and size gets when its file gives none.
std::optional<LinkDefaults> defaults_for(const Link& l, int generation) {
  LinkSpec spec;
  spec.kind = l.kind;
  spec.generation = generation;
  spec.lanes = l.lanes;
  spec.width = l.width > 0 ? l.width : 16;
  return link_defaults(spec).defaults;
}

// Whether the link still carries its kind's default bandwidth (no override, no fit).
bool has_default_bandwidth(const Link& l) {
  const auto d = defaults_for(l, l.generation);
  return d && d->bandwidth_Bps == l.bandwidth_Bps;
}

std::string gbps(double bandwidth_Bps) {
  return fmt::format("{:g} GB/s", bandwidth_Bps / 1e9);
}

std::string nvlink_spec(const GpuModel& m) {
  if (m.nvlink_generation == 0) return "no NVLink";
  return fmt::format("{} NVLink {} links", m.nvlink_links, m.nvlink_generation);
}

std::string link_name(const Topology& t, const Link& l) {
  return fmt::format("{}-{} ({})", t.node(l.a).id, t.node(l.b).id,
                     link_label(l.kind, l.generation, l.lanes, l.width));
}

std::vector<LinkId> links_of(const Topology& t, NodeId gpu, LinkKind kind) {
  std::vector<LinkId> out;
  for (LinkId id = 0; id < t.links().size(); ++id) {
    const Link& l = t.link(id);
    if (l.kind == kind && (l.a == gpu || l.b == gpu)) out.push_back(id);
  }
  return out;
}

// Re-rates the NVLinks of one swapped GPU at the new model's generation, or says why not.
void carry_nvlink(const JsonView& where, Topology& t, NodeId gpu, const GpuModel& old_model,
                  const GpuModel& model) {
  if (old_model.nvlink_generation == model.nvlink_generation &&
      old_model.nvlink_links == model.nvlink_links) {
    return;  // same NVLink: the base's wiring was drawn for it
  }
  const std::vector<LinkId> links = links_of(t, gpu, LinkKind::nvlink);
  int used = 0;
  for (LinkId id : links)
    used += t.link(id).lanes;
  if (used == 0) return;  // the base gives this GPU no NVLink; nor does the swap
  const std::string gpu_id = t.node(gpu).id;
  const std::string tail =
      "; expected a model with the base's NVLink wiring, or a machine file with its own nodes "
      "and links";
  if (model.nvlink_generation == 0 || used != model.nvlink_links) {
    where.fail(
        fmt::format("\"{}\" has {}, but the base wires {} NVLinks to {} (drawn for {}: "
                    "{}){}",
                    model.name, nvlink_spec(model), used, gpu_id, old_model.name,
                    nvlink_spec(old_model), tail));
  }
  for (LinkId id : links) {
    const Link& l = t.link(id);
    const NodeId other = l.a == gpu ? l.b : l.a;
    const Node& peer = t.node(other);
    if (peer.kind == NodeKind::gpu && peer.gpu->nvlink_generation != model.nvlink_generation) {
      where.fail(fmt::format("{} would join {} (NVLink {}) to {} ({}){}", link_name(t, l),
                             model.name, model.nvlink_generation, peer.model,
                             nvlink_spec(*peer.gpu), tail));
    }
    if (!has_default_bandwidth(l)) {
      where.fail(fmt::format(
          "{} has its own bandwidth ({}), which cannot be re-derived for "
          "NVLink {} ({}){}",
          link_name(t, l), gbps(l.bandwidth_Bps), model.nvlink_generation, model.name, tail));
    }
  }
  for (LinkId id : links) {
    const Link& l = t.link(id);
    if (l.generation == model.nvlink_generation) continue;  // the peer's swap re-rated it
    const auto d = defaults_for(l, model.nvlink_generation);
    t.set_link_generation(id, model.nvlink_generation, d->bandwidth_Bps, {d->basis, d->source});
  }
}

// A GPU's PCIe link trains at the lower of its two ends' generations.
void carry_pcie(const JsonView& where, Topology& t, NodeId gpu, const GpuModel& model) {
  for (LinkId id : links_of(t, gpu, LinkKind::pcie)) {
    const Link& l = t.link(id);
    if (l.generation <= model.pcie_generation) continue;
    if (!has_default_bandwidth(l)) {
      where.fail(fmt::format(
          "{} has its own bandwidth ({}), which cannot be re-derived for \"{}\" (PCIe {}.0); "
          "expected a model of the link's PCIe generation, or a machine file with its own links",
          link_name(t, l), gbps(l.bandwidth_Bps), model.name, model.pcie_generation));
    }
    const auto d = defaults_for(l, model.pcie_generation);
    t.set_link_generation(id, model.pcie_generation, d->bandwidth_Bps, {d->basis, d->source});
  }
}

}  // namespace

void replace_gpu_models(const JsonView& replace, Topology& topo) {
  struct Swap {
    JsonView where;
    NodeId gpu;
    GpuModel old_model;
  };
  std::vector<Swap> swaps;
  for (const auto& [from, to_view] : replace.members()) {
    const std::string to = to_view.as_string();
    auto model = find_gpu_model(to);
    if (!model) {
      to_view.fail(fmt::format("unknown GPU model \"{}\"; known models: {}", to,
                               fmt::join(gpu_model_names(), ", ")));
    }
    std::size_t replaced = 0;
    for (NodeId g : topo.nodes_of(NodeKind::gpu)) {
      if (topo.node(g).model != from) continue;
      swaps.push_back({to_view, g, *topo.node(g).gpu});
      topo.set_gpu_model(g, *model);
      ++replaced;
    }
    if (replaced == 0) {
      to_view.fail(fmt::format("the base machine has no GPU of model \"{}\" to replace", from));
    }
  }
  // Links are checked once every swap is made, so two GPUs swapped together may share one.
  for (const auto& s : swaps) {
    const GpuModel model = *topo.node(s.gpu).gpu;
    carry_nvlink(s.where, topo, s.gpu, s.old_model, model);
    carry_pcie(s.where, topo, s.gpu, model);
  }
}

}  // namespace linksim::topo
