#include "sim/topo/host_cpu_swap.hpp"

#include <fmt/format.h>

#include <set>
#include <string>
#include <vector>

#include "sim/topo/cpu_list.hpp"
#include "sim/topo/link_kind.hpp"
#include "sim/topo/loader_sections.hpp"

namespace linksim::topo {
namespace {

// The newest PCIe generation linksim rates (link_kind.cpp); a root port may claim no more.
constexpr int kMaxPcieGeneration = 6;

std::string gbps(double bandwidth_Bps) {
  return fmt::format("{:g} GB/s", bandwidth_Bps / 1e9);
}

std::string link_name(const Topology& t, const Link& l) {
  return fmt::format("{}-{} ({})", t.node(l.a).id, t.node(l.b).id,
                     link_label(l.kind, l.generation, l.lanes, l.width));
}

// The figures a link of this kind, generation and size gets when its file gives none.
std::optional<LinkDefaults> defaults_of(LinkKind kind, int generation, int lanes, int width) {
  LinkSpec spec;
  spec.kind = kind;
  spec.generation = generation;
  spec.lanes = lanes;
  spec.width = width > 0 ? width : 16;
  return link_defaults(spec).defaults;
}

bool has_default_figures(const Link& l) {
  const auto d = defaults_of(l.kind, l.generation, l.lanes, l.width);
  return d && d->bandwidth_Bps == l.bandwidth_Bps && d->latency_s == l.latency_s;
}

bool is_cpu(const Topology& t, NodeId n) {
  return t.node(n).kind == NodeKind::cpu;
}

// A link between CPU nodes of different sockets, of a socket interconnect's kind.
bool is_socket_link(const Topology& t, const Link& l) {
  const bool kind = l.kind == LinkKind::upi || l.kind == LinkKind::qpi || l.kind == LinkKind::xgmi;
  return kind && is_cpu(t, l.a) && is_cpu(t, l.b) &&
         t.node(l.a).cpu->socket != t.node(l.b).cpu->socket;
}

// Whether `kind` is the socket interconnect `vendor` builds (no claim for other vendors).
bool vendor_builds(const std::string& vendor, LinkKind kind) {
  if (vendor == "intel") return kind == LinkKind::upi || kind == LinkKind::qpi;
  if (vendor == "amd") return kind == LinkKind::xgmi;
  return true;
}

std::string text(const JsonView& v) {
  const std::string s = v.as_string();
  if (s.empty()) v.fail("expected a non-empty string");
  return s;
}

std::vector<std::string> read_cores(const JsonView& v, std::size_t cpus) {
  auto checked = [](const JsonView& e) {
    const std::string list = e.as_string();
    if (const auto problem = cpu_list_problem(list)) {
      e.fail(fmt::format("CPU list \"{}\": {}", list, *problem));
    }
    return list;
  };
  if (!v.is_array()) return std::vector<std::string>(cpus, checked(v));
  std::vector<std::string> out;
  for (const auto& e : v.elements())
    out.push_back(checked(e));
  if (out.size() != cpus) {
    v.fail(
        fmt::format("expected {} entries, one per CPU node of the base, got {}", cpus, out.size()));
  }
  return out;
}

void rerate_root_ports(const JsonView& where, Topology& t, int generation) {
  for (LinkId id = 0; id < t.links().size(); ++id) {
    const Link& l = t.link(id);
    if (l.kind != LinkKind::pcie || !(is_cpu(t, l.a) || is_cpu(t, l.b))) continue;
    if (l.generation <= generation) continue;
    if (!has_default_figures(l)) {
      where.fail(fmt::format(
          "{} has its own figures ({}), which cannot be re-derived at PCIe {}.0; expected a base "
          "whose root-port links carry their kind's defaults, or a machine file with its own links",
          link_name(t, l), gbps(l.bandwidth_Bps), generation));
    }
    const auto d = defaults_of(l.kind, generation, l.lanes, l.width);
    t.set_link_generation(id, generation, d->bandwidth_Bps, {d->basis, d->source});
  }
}

void replace_socket_links(const JsonView& sv, Topology& t) {
  sv.expect_only({"kind", "generation", "lanes"});
  const std::string kind_name = sv.at("kind").as_string();
  const auto kind = link_kind_from_string(kind_name);
  if (!kind || !(*kind == LinkKind::upi || *kind == LinkKind::qpi || *kind == LinkKind::xgmi)) {
    sv.at("kind").fail(
        fmt::format("\"{}\" is not a socket link; expected upi, qpi or xgmi", kind_name));
  }
  const auto generation = static_cast<int>(sv.integer_or("generation", 0));
  const auto lanes = static_cast<int>(sv.integer_or("lanes", 1));
  if (lanes < 1 || lanes > 8) sv.at("lanes").fail("expected 1 to 8 links between two sockets");
  LinkSpec spec;
  spec.kind = *kind;
  spec.generation = generation;
  spec.lanes = lanes;
  const LinkDefaultsResult d = link_defaults(spec);
  if (!d.defaults) {
    (sv.has("generation") ? sv.at("generation") : sv.at("kind")).fail(d.error);
  }
  std::size_t replaced = 0;
  for (LinkId id = 0; id < t.links().size(); ++id) {
    const Link& l = t.link(id);
    if (!is_socket_link(t, l)) continue;
    if (!has_default_figures(l)) {
      sv.fail(
          fmt::format("the base's {} has its own figures ({}), which another socket link "
                      "cannot inherit; expected a base whose socket links carry their "
                      "kind's defaults, or a machine file with its own links",
                      link_name(t, l), gbps(l.bandwidth_Bps)));
    }
    t.set_link_kind(id, *kind, generation, lanes, d.defaults->bandwidth_Bps, d.defaults->latency_s,
                    {d.defaults->basis, d.defaults->source});
    ++replaced;
  }
  if (replaced == 0) sv.fail("the base machine has no link between two sockets to replace");
}

}  // namespace

void replace_host_cpus(const JsonView& replace, Topology& topo) {
  replace.expect_only(
      {"vendor", "model", "memory_bandwidth", "cores", "pcie_generation", "socket_link"});
  const std::vector<NodeId> cpus = topo.nodes_of(NodeKind::cpu);
  if (cpus.empty()) replace.fail("the base machine has no CPU node to replace");

  const std::string vendor = replace.at("vendor").as_string();
  static const std::set<std::string> kVendors{"intel", "amd", "nvidia", "ibm", "other"};
  if (kVendors.count(vendor) == 0) {
    replace.at("vendor").fail(fmt::format(
        "unknown CPU vendor \"{}\"; expected one of intel, amd, nvidia, ibm, other", vendor));
  }
  const std::string model = text(replace.at("model"));
  double memory_bandwidth_Bps = 0;
  if (auto mb = replace.get("memory_bandwidth")) memory_bandwidth_Bps = bandwidth_field(*mb);
  std::vector<std::string> cores(cpus.size());
  if (auto cv = replace.get("cores")) cores = read_cores(*cv, cpus.size());

  for (std::size_t i = 0; i < cpus.size(); ++i) {
    CpuInfo info = *topo.node(cpus[i]).cpu;
    info.vendor = vendor;
    info.model = model;
    info.memory_bandwidth_Bps = memory_bandwidth_Bps;
    info.cores = cores[i];
    info.cpuid.reset();  // the base's dump described its own CPU
    topo.set_cpu(cpus[i], std::move(info));
  }

  if (auto gv = replace.get("pcie_generation")) {
    const std::int64_t generation = gv->as_integer();
    if (generation < 1 || generation > kMaxPcieGeneration) {
      gv->fail(fmt::format("PCIe generation {} is not known; expected 1 to {}", generation,
                           kMaxPcieGeneration));
    }
    rerate_root_ports(*gv, topo, static_cast<int>(generation));
  }

  if (auto sv = replace.get("socket_link")) {
    replace_socket_links(*sv, topo);
    return;
  }
  for (const Link& l : topo.links()) {
    if (is_socket_link(topo, l) && !vendor_builds(vendor, l.kind)) {
      replace.at("vendor").fail(fmt::format(
          "the base joins its sockets by {}, which {} CPUs do not have; expected \"socket_link\" "
          "to say what joins them",
          link_name(topo, l), vendor == "amd" ? "AMD" : "Intel"));
    }
  }
}

namespace {

// Whether a link endpoint as written ("cpu1", "cpu{g/4}", "numa{2+4*(k/2)}") names a node of an
// entry whose id is one of `ids` (a counted entry's nodes are its id and an ordinal).
bool names_entry(const std::string& endpoint, const std::set<std::string>& ids) {
  for (const std::string& id : ids) {
    if (endpoint.rfind(id, 0) != 0) continue;
    const std::string rest = endpoint.substr(id.size());
    if (rest.empty() || rest.front() == '{' ||
        rest.find_first_not_of("0123456789") == std::string::npos) {
      return true;
    }
  }
  return false;
}

bool own_figures(const Json& entry) {
  return entry.contains("bandwidth") || entry.contains("latency") || entry.contains("rate");
}

}  // namespace

void replace_host_cpus_in_document(const JsonView& replace, Json& machine) {
  std::set<std::string> cpu_ids;
  for (Json& node : machine["nodes"]) {
    if (node.value("kind", "") != "cpu") continue;
    cpu_ids.insert(node.value("id", ""));
    node["vendor"] = replace.at("vendor").as_string();
    node["model"] = replace.at("model").as_string();
    for (const char* key : {"memory_bandwidth", "cores"}) {
      if (replace.has(key)) {
        node[key] = replace.raw().at(key);
      } else {
        node.erase(key);
      }
    }
    node.erase("cpuid");
  }
  const auto generation = replace.get("pcie_generation");
  const auto socket = replace.get("socket_link");
  for (Json& link : machine["links"]) {
    const std::string kind = link.value("kind", "");
    const bool a_cpu = names_entry(link.value("a", ""), cpu_ids);
    const bool b_cpu = names_entry(link.value("b", ""), cpu_ids);
    const auto label = [&] {
      return fmt::format("the base's link {}-{} ({})", link.value("a", ""), link.value("b", ""),
                         kind);
    };
    if (generation && kind == "pcie" && (a_cpu || b_cpu) &&
        link.value("generation", 0) > generation->as_integer()) {
      if (own_figures(link)) {
        generation->fail(
            fmt::format("{} has figures of its own, which cannot be re-derived at "
                        "PCIe {}.0; expected a machine file with its own links",
                        label(), generation->as_integer()));
      }
      link["generation"] = generation->as_integer();
    }
    if (socket && (kind == "upi" || kind == "qpi" || kind == "xgmi") && a_cpu && b_cpu) {
      if (own_figures(link)) {
        socket->fail(
            fmt::format("{} has figures of its own, which another socket link cannot "
                        "inherit; expected a machine file with its own links",
                        label()));
      }
      link["kind"] = socket->at("kind").as_string();
      link.erase("generation");
      link.erase("lanes");
      for (const char* key : {"generation", "lanes"}) {
        if (socket->has(key)) link[key] = socket->raw().at(key);
      }
      link.erase("basis");
      link.erase("source");
    }
  }
}

}  // namespace linksim::topo
