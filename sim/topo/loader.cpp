#include "sim/topo/loader.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>

#include "sim/core/data_dir.hpp"
#include "sim/core/error.hpp"
#include "sim/core/schema_check.hpp"
#include "sim/topo/cluster_loader.hpp"
#include "sim/topo/gpu_model.hpp"
#include "sim/topo/link_kind.hpp"
#include "sim/topo/model_swap.hpp"
#include "sim/topo/template_expr.hpp"

namespace linksim::topo {
namespace fs = std::filesystem;

namespace {

constexpr int kMaxBaseDepth = 8;

using GpuModels = std::map<std::string, GpuModel>;

std::string expand_or_fail(const JsonView& where, const std::string& pattern,
                           const TemplateVars& vars) {
  TemplateResult r = expand_template(pattern, vars);
  if (!r.error.empty()) where.fail(r.error);
  return r.text;
}

// An int field that may also be a template string ("{i/4}").
int template_int(const JsonView& v, const TemplateVars& vars) {
  if (v.is_number()) return static_cast<int>(v.as_integer());
  const std::string text = expand_or_fail(v, v.as_string(), vars);
  try {
    std::size_t used = 0;
    const int out = std::stoi(text, &used);
    if (used == text.size()) return out;
  } catch (const std::exception&) {
  }
  v.fail(fmt::format("expected an integer or an integer template such as \"{{i/4}}\", got \"{}\"",
                     text));
}

std::string describe_vars(const TemplateVars& vars) {
  if (vars.empty()) return "";
  std::vector<std::string> parts;
  for (const auto& [k, v] : vars)
    parts.push_back(fmt::format("{}={}", k, v));
  return fmt::format(" (with {})", fmt::join(parts, ", "));
}

double bandwidth_field(const JsonView& v) {
  const double bw = v.as_bandwidth_Bps();
  if (!(bw > 0)) v.fail(fmt::format("bandwidth must be positive, got \"{}\"", v.as_string()));
  if (bw < kMinBandwidth_Bps || bw > kMaxBandwidth_Bps) {
    v.fail(
        fmt::format("bandwidth \"{}\" is absurd; expected between 1 MB/s and 10 TB/s per "
                    "direction",
                    v.as_string()));
  }
  return bw;
}

double latency_field(const JsonView& v) {
  const double lat = v.as_time_s();
  if (!(lat > 0)) v.fail(fmt::format("latency must be positive, got \"{}\"", v.as_string()));
  if (lat > kMaxLatency_s) {
    v.fail(fmt::format("latency \"{}\" is absurd; expected at most 1 ms per hop", v.as_string()));
  }
  return lat;
}

GpuModel parse_gpu_model(const std::string& name, const JsonView& v) {
  v.expect_only({"architecture", "memory", "hbm_bandwidth", "peak_tflops", "nvlink_generation",
                 "nvlink_links", "pcie_generation", "pcie_width", "pcie_p2p", "sm_count",
                 "source"});
  GpuModel m;
  m.name = name;
  m.architecture = v.string_or("architecture", "");
  m.memory_bytes = v.at("memory").as_bytes();
  if (!(m.memory_bytes > 0)) v.at("memory").fail("memory must be positive");
  m.hbm_bandwidth_Bps = bandwidth_field(v.at("hbm_bandwidth"));
  for (const auto& [dtype, tf] : v.at("peak_tflops").members()) {
    static const std::set<std::string> kDtypes{"fp64", "fp32", "tf32", "fp16",
                                               "bf16", "fp8",  "int8"};
    if (kDtypes.count(dtype) == 0) {
      tf.fail(
          fmt::format("unknown dtype \"{}\"; expected one of fp64, fp32, tf32, fp16, bf16, "
                      "fp8, int8",
                      dtype));
    }
    const double t = tf.as_number();
    if (!(t > 0) || t > 1e5) tf.fail("peak TFLOP/s must be between 0 and 100000");
    m.peak_flops[dtype] = t * 1e12;
  }
  m.nvlink_generation = static_cast<int>(v.integer_or("nvlink_generation", 0));
  m.nvlink_links = static_cast<int>(v.integer_or("nvlink_links", 0));
  m.pcie_generation = static_cast<int>(v.integer_or("pcie_generation", 4));
  m.pcie_width = static_cast<int>(v.integer_or("pcie_width", 16));
  m.pcie_p2p = v.bool_or("pcie_p2p", true);
  m.sm_count = static_cast<int>(v.integer_or("sm_count", 0));
  m.source = v.string_or("source", "");
  return m;
}

std::optional<GpuModel> lookup_gpu(const GpuModels& custom, const std::string& name) {
  auto it = custom.find(name);
  if (it != custom.end()) return it->second;
  return find_gpu_model(name);
}

// Values of a "for" variable: "lo..hi" inclusive, or an array of integers.
std::vector<std::int64_t> loop_values(const JsonView& v) {
  std::vector<std::int64_t> out;
  if (v.is_array()) {
    for (const auto& e : v.elements())
      out.push_back(e.as_integer());
    if (out.empty()) v.fail("expected at least one value");
    return out;
  }
  const std::string text = v.as_string();
  const auto dots = text.find("..");
  std::int64_t lo = 0;
  std::int64_t hi = -1;
  bool ok = dots != std::string::npos;
  if (ok) {
    try {
      std::size_t u1 = 0;
      std::size_t u2 = 0;
      lo = std::stoll(text.substr(0, dots), &u1);
      hi = std::stoll(text.substr(dots + 2), &u2);
      ok = u1 == dots && u2 == text.size() - dots - 2;
    } catch (const std::exception&) {
      ok = false;
    }
  }
  if (!ok || hi < lo || hi - lo > 1'000'000) {
    v.fail(
        fmt::format("expected a range \"lo..hi\" (inclusive, lo <= hi) or an array of "
                    "integers, got \"{}\"",
                    text));
  }
  for (std::int64_t i = lo; i <= hi; ++i)
    out.push_back(i);
  return out;
}

// Cartesian product of the loop variables, in key order (first key varies slowest).
std::vector<TemplateVars> loop_bindings(const std::optional<JsonView>& loops) {
  std::vector<TemplateVars> out{TemplateVars{}};
  if (!loops) return out;
  // Each variable is bounded, and so is their product: two of 1,000,000 values would be 1e12
  // links.
  constexpr std::size_t kMaxBindings = 1'000'000;
  for (const auto& [name, values_view] : loops->members()) {
    const auto values = loop_values(values_view);
    if (out.size() * values.size() > kMaxBindings) {
      loops->fail(
          fmt::format("the \"for\" variables make {} x {} combinations; expected at "
                      "most {} in all",
                      out.size(), values.size(), kMaxBindings));
    }
    std::vector<TemplateVars> next;
    for (const auto& partial : out) {
      for (auto value : values) {
        TemplateVars b = partial;
        b[name] = value;
        next.push_back(std::move(b));
      }
    }
    out = std::move(next);
  }
  return out;
}

void parse_nodes(const JsonView& nodes_view, const GpuModels& models, Topology& topo) {
  std::map<std::string, std::string> where_defined;
  for (const auto& nv : nodes_view.elements()) {
    nv.expect_only({"id", "kind", "count", "model", "note", "vendor", "pcie_p2p",
                    "memory_bandwidth", "socket", "numa_node", "cores", "port_bandwidth", "role",
                    "network"});
    const std::string base_id = nv.at("id").as_string();
    if (base_id.empty()) nv.at("id").fail("expected a non-empty id");
    const std::string kind_name = nv.at("kind").as_string();
    auto kind = node_kind_from_string(kind_name);
    if (!kind) {
      nv.at("kind").fail(
          fmt::format("unknown node kind \"{}\"; expected one of gpu, nvswitch, "
                      "pcie_switch, cpu, nic, net_switch",
                      kind_name));
    }
    // Kind-specific fields are only accepted on their kind.
    auto only_for = [&](std::initializer_list<const char*> fields, NodeKind k) {
      for (const char* f : fields) {
        if (nv.has(f) && *kind != k) {
          nv.at(f).fail(fmt::format("field \"{}\" applies to {} nodes only, not {}", f,
                                    to_string(k), kind_name));
        }
      }
    };
    only_for({"vendor", "pcie_p2p", "memory_bandwidth", "socket", "numa_node", "cores"},
             NodeKind::cpu);
    only_for({"port_bandwidth", "role", "network"}, NodeKind::nic);
    bool scale_out = true;
    if (auto rv = nv.get("role")) {
      const std::string role = rv->as_string();
      if (role != "compute" && role != "storage") {
        rv->fail(fmt::format("unknown NIC role \"{}\"; expected compute or storage", role));
      }
      scale_out = role == "compute";
    }
    std::optional<FabricKind> network;
    if (auto netv = nv.get("network")) network = fabric_kind_field(*netv);

    std::int64_t count = 1;
    const bool counted = nv.has("count");
    if (counted) {
      count = nv.at("count").as_integer();
      if (count < 1 || count > 1'000'000) nv.at("count").fail("expected a count from 1 to 1000000");
    }
    std::optional<GpuModel> gpu;
    std::string model = nv.string_or("model", "");
    if (*kind == NodeKind::gpu) {
      if (!nv.has("model")) nv.fail("missing required field \"model\" (the GPU model)");
      gpu = lookup_gpu(models, model);
      if (!gpu) {
        std::vector<std::string> names = gpu_model_names();
        for (const auto& [n, m] : models)
          names.push_back(n);
        nv.at("model").fail(
            fmt::format("unknown GPU model \"{}\"; known models: {} (or define it "
                        "under \"gpu_models\")",
                        model, fmt::join(names, ", ")));
      }
    }
    std::optional<double> port_bw;
    if (auto pb = nv.get("port_bandwidth")) port_bw = bandwidth_field(*pb);
    std::optional<double> mem_bw;
    if (auto mb = nv.get("memory_bandwidth")) mem_bw = bandwidth_field(*mb);
    std::string vendor;
    if (*kind == NodeKind::cpu) {
      vendor = nv.at("vendor").as_string();
      static const std::set<std::string> kVendors{"intel", "amd", "nvidia", "ibm", "other"};
      if (kVendors.count(vendor) == 0) {
        nv.at("vendor").fail(fmt::format(
            "unknown CPU vendor \"{}\"; expected one of intel, amd, nvidia, ibm, other", vendor));
      }
    }
    std::vector<std::string> cores_list;
    if (auto cv = nv.get("cores")) {
      if (cv->is_array()) {
        for (const auto& e : cv->elements())
          cores_list.push_back(e.as_string());
        if (static_cast<std::int64_t>(cores_list.size()) != count) {
          cv->fail(fmt::format("expected {} entries, one per node of the count, got {}", count,
                               cores_list.size()));
        }
      } else {
        cores_list.assign(static_cast<std::size_t>(count), cv->as_string());
      }
    }

    for (std::int64_t i = 0; i < count; ++i) {
      const TemplateVars vars{{"i", i}};
      Node node;
      node.id = counted ? base_id + std::to_string(i) : base_id;
      node.kind = *kind;
      node.model = model;
      node.gpu = gpu;
      if (*kind == NodeKind::cpu) {
        CpuInfo cpu;
        cpu.vendor = vendor;
        cpu.model = model;
        cpu.pcie_p2p = nv.bool_or("pcie_p2p", true);
        cpu.memory_bandwidth_Bps = mem_bw.value_or(0);
        if (auto s = nv.get("socket")) cpu.socket = template_int(*s, vars);
        if (auto n = nv.get("numa_node")) {
          cpu.numa_node = template_int(*n, vars);
        } else {
          cpu.numa_node = static_cast<int>(topo.count(NodeKind::cpu));
        }
        if (!nv.has("socket")) cpu.socket = static_cast<int>(topo.count(NodeKind::cpu));
        if (!cores_list.empty()) cpu.cores = cores_list[static_cast<std::size_t>(i)];
        node.cpu = cpu;
      }
      if (*kind == NodeKind::nic) {
        node.nic = NicInfo{model, port_bw.value_or(0), scale_out, -1, network};
      }
      auto [it, inserted] = where_defined.emplace(node.id, nv.pointer());
      if (!inserted) {
        nv.at("id").fail(
            fmt::format("duplicate node id \"{}\" (already defined at {})", node.id, it->second));
      }
      topo.add_node(std::move(node));
    }
  }
}

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

// [lo, hi] around `nominal`, each end read by `read`.
template <class Read>
Range range_field(const JsonView& v, double nominal, Read read, const std::string& what) {
  const auto ends = v.elements();
  if (ends.size() != 2) v.fail(fmt::format("expected [low, high] around {}", what));
  const Range r{read(ends[0]), read(ends[1])};
  if (!(r.lo <= nominal && nominal <= r.hi)) {
    v.fail(fmt::format("expected [low, high] with low <= {} <= high", what));
  }
  return r;
}

void parse_links(const JsonView& links_view, Topology& topo) {
  for (const auto& lv : links_view.elements()) {
    lv.expect_only({"a", "b", "for", "kind", "generation", "lanes", "width", "rate", "host_bridge",
                    "bandwidth", "latency", "bandwidth_range", "latency_range", "basis", "source",
                    "note"});
    const std::string kind_name = lv.at("kind").as_string();
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
    if ((*kind == LinkKind::infiniband || *kind == LinkKind::ethernet) && !lv.has("rate") &&
        !lv.has("bandwidth")) {
      lv.fail(fmt::format("missing field \"rate\" (or \"bandwidth\") for a {} link", kind_name));
    }

    std::optional<LinkDefaults> defaults;
    if (!((*kind == LinkKind::infiniband || *kind == LinkKind::ethernet) && spec.rate.empty())) {
      LinkDefaultsResult d = link_defaults(spec);
      if (!d.defaults) lv.fail(d.error);
      defaults = d.defaults;
    }
    Link proto;
    proto.kind = *kind;
    proto.generation = spec.generation;
    proto.lanes = spec.lanes;
    proto.width = *kind == LinkKind::pcie ? spec.width : 0;
    if (defaults) {
      proto.bandwidth_Bps = defaults->bandwidth_Bps;
      proto.latency_s = defaults->latency_s;
      proto.provenance = {defaults->basis, defaults->source};
    } else {
      proto.latency_s = *kind == LinkKind::infiniband ? 0.6e-6 : 2e-6;
      proto.provenance = {"theoretical", ""};
    }
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
      const std::string bad = check_endpoints(*kind, topo.node(*a), topo.node(*b));
      if (!bad.empty()) {
        lv.fail(fmt::format("a {} link cannot join {} ({}) and {} ({}): {}", kind_name, a_id,
                            to_string(topo.node(*a).kind), b_id, to_string(topo.node(*b).kind),
                            bad));
      }
      Link link = proto;
      link.a = *a;
      link.b = *b;
      if (auto hb = lv.get("host_bridge")) {
        if (*kind != LinkKind::pcie) hb->fail("\"host_bridge\" applies to PCIe links only");
        link.host_bridge = template_int(*hb, vars);
      }
      topo.add_link(link);
    }
  }
}

// Every GPU must reach every other over some links; otherwise no job can span them.
void check_connected(const Topology& topo, const JsonView& root) {
  const auto gpus = topo.nodes_of(NodeKind::gpu);
  if (gpus.empty()) root.fail("a machine needs at least one node of kind \"gpu\"");
  std::vector<int> seen(topo.nodes().size(), 0);
  std::vector<NodeId> stack{gpus.front()};
  seen[gpus.front()] = 1;
  while (!stack.empty()) {
    const NodeId n = stack.back();
    stack.pop_back();
    for (ChannelId c : topo.out_channels(n)) {
      const NodeId t = topo.channel_to(c);
      if (!seen[t]) {
        seen[t] = 1;
        stack.push_back(t);
      }
    }
  }
  for (NodeId g : gpus) {
    if (!seen[g]) {
      throw InputError(root.file(), "/links",
                       fmt::format("GPUs cannot reach each other: no path of links joins {} and "
                                   "{}; expected every GPU to be connected",
                                   topo.node(gpus.front()).id, topo.node(g).id));
    }
  }
}

// A GPU cannot use more NVLinks than its model has.
void check_nvlink_budget(const Topology& topo, const JsonView& root) {
  std::vector<int> used(topo.nodes().size(), 0);
  for (const auto& l : topo.links()) {
    if (l.kind != LinkKind::nvlink) continue;
    used[l.a] += l.lanes;
    used[l.b] += l.lanes;
  }
  for (NodeId g : topo.nodes_of(NodeKind::gpu)) {
    const auto& gpu = *topo.node(g).gpu;
    if (used[g] > 0 && used[g] > gpu.nvlink_links) {
      throw InputError(
          root.file(), "/links",
          fmt::format("{} uses {} NVLinks but a {} has {}; expected at most {}", topo.node(g).id,
                      used[g], gpu.name, gpu.nvlink_links, gpu.nvlink_links));
    }
  }
}

Topology parse_with_depth(const Json& document, const std::string& file, int depth);

Topology load_with_depth(const std::string& path, int depth) {
  return parse_with_depth(read_json_file(path), path, depth);
}

Topology parse_with_depth(const Json& document, const std::string& file, int depth) {
  JsonView root(document, file);
  if (root.has("cluster")) return parse_cluster(root, file);
  root.expect_only({"$schema", "title", "description", "sources", "notes", "base", "instance",
                    "replace_models", "gpu_models", "nodes", "links", "collective_calibration",
                    "host_launch"});
  Topology topo;
  if (auto base = root.get("base")) {
    if (depth >= kMaxBaseDepth) base->fail("\"base\" chain is too deep (a cycle?)");
    if (root.has("nodes") || root.has("links") || root.has("gpu_models")) {
      base->fail(
          "a file with \"base\" takes its nodes, links and gpu_models from the base; "
          "remove them here or drop \"base\"");
    }
    const fs::path base_path = fs::path(file).parent_path() / base->as_string();
    std::error_code ec;
    if (!fs::exists(base_path, ec)) {
      base->fail(fmt::format("base machine \"{}\" not found (looked for {})", base->as_string(),
                             base_path.string()));
    }
    topo = load_with_depth(base_path.string(), depth + 1);
    topo.base = fs::path(base->as_string()).stem().string();
    if (auto replace = root.get("replace_models")) {
      replace_gpu_models(*replace, topo);
      check_nvlink_budget(topo, root);
    }
  } else {
    GpuModels models;
    if (auto gm = root.get("gpu_models")) {
      for (const auto& [name, mv] : gm->members())
        models.emplace(name, parse_gpu_model(name, mv));
    }
    parse_nodes(root.at("nodes"), models, topo);
    parse_links(root.at("links"), topo);
    check_connected(topo, root);
    check_nvlink_budget(topo, root);
  }
  read_identity(root, file, topo);
  if (auto hv = root.get("host_launch")) {
    hv->expect_only({"per_gpu", "range", "source"});
    topo.host_launch.per_gpu_s = latency_field(hv->at("per_gpu"));
    if (auto r = hv->get("range")) {
      topo.host_launch.range_s =
          range_field(*r, topo.host_launch.per_gpu_s, latency_field, "host_launch.per_gpu");
    }
    topo.host_launch.source = hv->string_or("source", "");
  }
  if (auto cv = root.get("collective_calibration")) {
    cv->expect_only({"latency_scale", "bandwidth_scale", "latency_scale_range",
                     "bandwidth_scale_range", "ll_scale", "ll_scale_range", "ll128_scale",
                     "ll128_scale_range", "by_op", "source"});
    const auto scale = [](const JsonView& x) {
      const double value = x.as_number();
      if (!(value >= 0.05 && value <= 20)) x.fail("expected a scale between 0.05 and 20");
      return value;
    };
    auto scales = [&](const JsonView& v) {
      CollectiveScales out;
      for (auto [key, field, range] :
           {std::tuple{"latency_scale", &out.latency, &out.latency_range},
            std::tuple{"bandwidth_scale", &out.bandwidth, &out.bandwidth_range},
            std::tuple{"ll_scale", &out.ll, &out.ll_range},
            std::tuple{"ll128_scale", &out.ll128, &out.ll128_range}}) {
        if (auto x = v.get(key)) *field = scale(*x);
        if (auto r = v.get(std::string(key) + "_range")) {
          *range = range_field(*r, *field, scale, fmt::format("{} ({})", key, *field));
        }
      }
      return out;
    };
    topo.collective.all = scales(*cv);
    if (auto ops = cv->get("by_op")) {
      for (const auto& [op, v] : ops->members()) {
        v.expect_only({"latency_scale", "bandwidth_scale", "latency_scale_range",
                       "bandwidth_scale_range", "ll_scale", "ll_scale_range", "ll128_scale",
                       "ll128_scale_range"});
        const auto known = collective_op_from_string(op);
        if (!known || to_string(*known) != op) {
          v.fail(fmt::format("\"{}\" is not a collective operation: expected one of {}", op,
                             fmt::join(collective_op_names(), ", ")));
        }
        topo.collective.by_op[*known] = scales(v);
      }
    }
    topo.collective.source = cv->string_or("source", "");
  }
  if (auto iv = root.get("instance")) {
    iv->expect_only({"provider", "name", "price_per_hour_usd", "network", "network_bandwidth",
                     "network_kind", "sources", "note"});
    Instance inst;
    inst.provider = iv->at("provider").as_string();
    inst.name = iv->at("name").as_string();
    if (auto price = iv->get("price_per_hour_usd")) {
      inst.price_per_hour_usd = price->as_number();
      if (*inst.price_per_hour_usd < 0) price->fail("price cannot be negative");
    }
    inst.network = iv->string_or("network", "");
    if (auto nb = iv->get("network_bandwidth")) inst.network_bandwidth_Bps = bandwidth_field(*nb);
    if (auto nk = iv->get("network_kind")) inst.network_kind = fabric_kind_field(*nk);
    if (auto s = iv->get("sources")) {
      for (const auto& e : s->elements())
        inst.sources.push_back(e.as_string());
    }
    topo.instance = inst;
  }
  // After the loader's own checks, which say more; the schema catches what they let through.
  enforce_schema(document, file, topology_schema_path());
  return topo;
}

}  // namespace

void read_identity(const JsonView& root, const std::string& file, Topology& topo) {
  topo.file = file;
  topo.name = fs::path(file).stem().string();
  topo.title = root.at("title").as_string();
  topo.description = root.string_or("description", "");
  topo.sources.clear();
  if (auto s = root.get("sources")) {
    for (const auto& e : s->elements())
      topo.sources.push_back(e.as_string());
  }
  topo.notes.clear();
  if (auto n = root.get("notes")) {
    for (const auto& e : n->elements())
      topo.notes.push_back(e.as_string());
  }
}

Topology parse_topology(const Json& document, const std::string& file) {
  return parse_with_depth(document, file, 0);
}

Topology load_topology(const std::string& path) {
  return load_with_depth(resolve_topology_path(path), 0);
}

std::string shipped_topology_dir() {
  return data_dir() + "/topologies";
}

std::vector<std::string> shipped_cluster_files() {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(shipped_topology_dir() + "/clusters", ec)) {
    const auto& p = entry.path();
    if (p.extension() == ".json" && p.filename() != "schema.json") out.push_back(p.string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> shipped_topology_files() {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(shipped_topology_dir(), ec)) {
    const auto& p = entry.path();
    if (p.extension() == ".json" && p.filename() != "schema.json") out.push_back(p.string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string resolve_topology_path(const std::string& name_or_path) {
  std::error_code ec;
  if (fs::exists(name_or_path, ec)) return name_or_path;
  if (name_or_path.find('/') != std::string::npos) return name_or_path;
  // Machines first, then clusters (topologies/clusters/).
  for (const fs::path& dir :
       {fs::path(shipped_topology_dir()), fs::path(shipped_topology_dir()) / "clusters"}) {
    const fs::path shipped = dir / (name_or_path + ".json");
    if (fs::exists(shipped, ec)) return shipped.string();
  }
  return name_or_path;
}

}  // namespace linksim::topo
