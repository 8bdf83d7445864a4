// The "links" section: one entry per link, or per "for" loop of links, with figures from the
// link kind's defaults (link_kind.hpp) unless the entry overrides them.
#include <fmt/format.h>

#include <algorithm>
#include <initializer_list>

#include "sim/topo/link_kind.hpp"
#include "sim/topo/loader_sections.hpp"

namespace linksim::topo {
namespace {

bool is_device(NodeKind k) {
  return k == NodeKind::gpu || k == NodeKind::nic;
}

bool is_amd_instinct(const Node& n) {
  return n.gpu && n.gpu->architecture.rfind("cdna", 0) == 0;
}

// Which node kinds a link kind may join; a mismatch is a typo more often than a design.
std::string check_endpoints(LinkKind kind, const Node& a, const Node& b) {
  auto either = [&](NodeKind k) { return a.kind == k || b.kind == k; };
  auto both_in = [&](std::initializer_list<NodeKind> ks) {
    auto in = [&](NodeKind k) { return std::find(ks.begin(), ks.end(), k) != ks.end(); };
    return in(a.kind) && in(b.kind);
  };
  switch (kind) {
    case LinkKind::nvlink:
      if (!both_in({NodeKind::gpu, NodeKind::nvswitch})) return "NVLink joins GPUs and NVSwitches";
      break;
    case LinkKind::pcie:
      if (either(NodeKind::nvswitch) || either(NodeKind::net_switch)) {
        return "PCIe joins GPUs, NICs, PCIe switches and CPUs";
      }
      if (is_device(a.kind) && is_device(b.kind)) {
        return "a PCIe link cannot join two endpoint devices directly; put a pcie_switch or cpu "
               "between them";
      }
      break;
    case LinkKind::xgmi:
      // AMD Instinct GPUs (CDNA) join each other over Infinity Fabric, as EPYC sockets do.
      if (both_in({NodeKind::gpu}) && is_amd_instinct(a) && is_amd_instinct(b)) break;
      if (!both_in({NodeKind::cpu})) {
        return "xGMI joins two cpu nodes, or two AMD Instinct GPUs (architecture cdna...)";
      }
      break;
    case LinkKind::upi:
    case LinkKind::qpi:
    case LinkKind::soc:
      if (!both_in({NodeKind::cpu})) return "socket interconnects join two cpu nodes";
      break;
    case LinkKind::c2c:
      if (!both_in({NodeKind::cpu, NodeKind::gpu})) return "NVLink-C2C joins a CPU and a GPU";
      break;
    case LinkKind::infiniband:
    case LinkKind::ethernet:
      if (!both_in({NodeKind::nic, NodeKind::net_switch})) {
        return "network links join NICs and network switches";
      }
      break;
  }
  return "";
}

bool is_network(LinkKind kind) {
  return kind == LinkKind::infiniband || kind == LinkKind::ethernet;
}

// kind, generation, lanes, width and rate, with the fields each kind requires.
LinkSpec read_spec(const JsonView& lv, const std::string& kind_name) {
  auto kind = link_kind_from_string(kind_name);
  if (!kind) {
    lv.at("kind").fail(fmt::format("unknown link kind \"{}\"; expected one of {}", kind_name,
                                   fmt::join(link_kind_names(), ", ")));
  }
  LinkSpec spec;
  spec.kind = *kind;
  spec.generation = static_cast<int>(lv.integer_or("generation", 0));
  spec.lanes = static_cast<int>(lv.integer_or("lanes", 1));
  spec.width = static_cast<int>(lv.integer_or("width", 16));
  spec.rate = lv.string_or("rate", "");
  if (spec.lanes < 1 || spec.lanes > 64) lv.at("lanes").fail("expected lanes from 1 to 64");
  if ((*kind == LinkKind::nvlink || *kind == LinkKind::pcie) && !lv.has("generation")) {
    lv.fail(fmt::format("missing required field \"generation\" for a {} link", kind_name));
  }
  if (is_network(*kind) && !lv.has("rate") && !lv.has("bandwidth")) {
    lv.fail(fmt::format("missing field \"rate\" (or \"bandwidth\") for a {} link", kind_name));
  }
  return spec;
}

// The link kind's figures; a network link given by bandwidth alone (no rate) has none, and
// takes a typical latency (InfiniBand 0.6 us, Ethernet 2 us).
Link default_link(const JsonView& lv, const LinkSpec& spec) {
  Link proto;
  proto.kind = spec.kind;
  proto.generation = spec.generation;
  proto.lanes = spec.lanes;
  proto.width = spec.kind == LinkKind::pcie ? spec.width : 0;
  if (is_network(spec.kind) && spec.rate.empty()) {
    proto.latency_s = spec.kind == LinkKind::infiniband ? 0.6e-6 : 2e-6;
    proto.provenance = {"theoretical", ""};
    return proto;
  }
  LinkDefaultsResult d = link_defaults(spec);
  if (!d.defaults) lv.fail(d.error);
  proto.bandwidth_Bps = d.defaults->bandwidth_Bps;
  proto.latency_s = d.defaults->latency_s;
  proto.provenance = {d.defaults->basis, d.defaults->source};
  return proto;
}

// The entry's own figures over the defaults: bandwidth, latency, basis, source and ranges.
void apply_overrides(const JsonView& lv, Link& proto) {
  if (auto bw = lv.get("bandwidth")) {
    proto.bandwidth_Bps = bandwidth_field(*bw);
    proto.provenance = {"effective", ""};
  }
  if (auto lat = lv.get("latency")) proto.latency_s = latency_field(*lat);
  if (auto basis = lv.get("basis")) {
    const std::string b = basis->as_string();
    if (b != "theoretical" && b != "effective") {
      basis->fail(fmt::format("expected \"theoretical\" or \"effective\", got \"{}\"", b));
    }
    proto.provenance.basis = b;
  }
  if (auto src = lv.get("source")) proto.provenance.source = src->as_string();
  if (auto r = lv.get("bandwidth_range")) {
    proto.bandwidth_range_Bps =
        range_field(*r, proto.bandwidth_Bps, bandwidth_field, "the link's bandwidth");
  }
  if (auto r = lv.get("latency_range")) {
    proto.latency_range_s = range_field(*r, proto.latency_s, latency_field, "the link's latency");
  }
}

// One link of `proto` per binding of the entry's "for" loop, between the nodes it names.
void add_links(const JsonView& lv, const Link& proto, const std::string& kind_name,
               Topology& topo) {
  const std::string a_pattern = lv.at("a").as_string();
  const std::string b_pattern = lv.at("b").as_string();
  for (const auto& vars : loop_bindings(lv.get("for"))) {
    const std::string a_id = expand_or_fail(lv.at("a"), a_pattern, vars);
    const std::string b_id = expand_or_fail(lv.at("b"), b_pattern, vars);
    auto a = topo.find(a_id);
    auto b = topo.find(b_id);
    if (!a) {
      lv.at("a").fail(fmt::format("link to a missing node \"{}\"{}", a_id, describe_vars(vars)));
    }
    if (!b) {
      lv.at("b").fail(fmt::format("link to a missing node \"{}\"{}", b_id, describe_vars(vars)));
    }
    if (*a == *b) lv.fail(fmt::format("link from \"{}\" to itself{}", a_id, describe_vars(vars)));
    const std::string bad = check_endpoints(proto.kind, topo.node(*a), topo.node(*b));
    if (!bad.empty()) {
      lv.fail(fmt::format("a {} link cannot join {} ({}) and {} ({}): {}", kind_name, a_id,
                          to_string(topo.node(*a).kind), b_id, to_string(topo.node(*b).kind), bad));
    }
    Link link = proto;
    link.a = *a;
    link.b = *b;
    if (auto hb = lv.get("host_bridge")) {
      if (proto.kind != LinkKind::pcie) hb->fail("\"host_bridge\" applies to PCIe links only");
      link.host_bridge = template_int(*hb, vars);
    }
    topo.add_link(link);
  }
}

}  // namespace

void parse_links(const JsonView& links_view, Topology& topo) {
  for (const auto& lv : links_view.elements()) {
    lv.expect_only({"a", "b", "for", "kind", "generation", "lanes", "width", "rate", "host_bridge",
                    "bandwidth", "latency", "bandwidth_range", "latency_range", "basis", "source",
                    "note"});
    const std::string kind_name = lv.at("kind").as_string();
    const LinkSpec spec = read_spec(lv, kind_name);
    Link proto = default_link(lv, spec);
    apply_overrides(lv, proto);
    add_links(lv, proto, kind_name, topo);
  }
}

}  // namespace linksim::topo
