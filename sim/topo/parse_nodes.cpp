// The "nodes" section: GPUs, switches, CPUs and NICs, each entry possibly counted ("count": 8
// makes gpu0..gpu7). An entry is read and checked once, then expanded into its nodes.
#include <fmt/format.h>

#include <cstdint>
#include <initializer_list>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "sim/topo/cluster_loader.hpp"
#include "sim/topo/cpu_list.hpp"
#include "sim/topo/loader_sections.hpp"

namespace linksim::topo {
namespace {

// One entry of "nodes", read and checked: what its `count` nodes share.
struct NodeEntry {
  std::string base_id;
  NodeKind kind = NodeKind::gpu;
  std::string kind_name;
  std::int64_t count = 1;
  bool counted = false;  // ids get the ordinal appended only when "count" is given
  std::string model;
  std::optional<GpuModel> gpu;
  bool scale_out = true;  // NIC role: compute (true) or storage
  std::optional<FabricKind> network;
  std::optional<double> port_bandwidth_Bps;
  std::optional<double> memory_bandwidth_Bps;
  std::string vendor;
  std::vector<std::string> cores;  // one per node, or empty
  std::optional<CpuIdentity> cpuid;
  std::optional<PciIdentity> pci;
  std::optional<NcclDevice> nccl;
};

std::optional<GpuModel> lookup_gpu(const GpuModels& custom, const std::string& name) {
  auto it = custom.find(name);
  if (it != custom.end()) return it->second;
  return find_gpu_model(name);
}

NodeKind read_kind(const JsonView& nv, const std::string& kind_name) {
  auto kind = node_kind_from_string(kind_name);
  if (!kind) {
    nv.at("kind").fail(
        fmt::format("unknown node kind \"{}\"; expected one of gpu, nvswitch, "
                    "pcie_switch, cpu, nic, net_switch",
                    kind_name));
  }
  return *kind;
}

// Kind-specific fields are only accepted on their kind.
void check_kind_fields(const JsonView& nv, const NodeEntry& e) {
  auto only_for = [&](std::initializer_list<const char*> fields, NodeKind k) {
    for (const char* f : fields) {
      if (nv.has(f) && e.kind != k) {
        nv.at(f).fail(fmt::format("field \"{}\" applies to {} nodes only, not {}", f, to_string(k),
                                  e.kind_name));
      }
    }
  };
  only_for({"vendor", "pcie_p2p", "memory_bandwidth", "socket", "numa_node", "cores"},
           NodeKind::cpu);
  only_for({"port_bandwidth", "role", "network"}, NodeKind::nic);
  only_for({"cpuid"}, NodeKind::cpu);
  if (nv.has("pci") && (e.kind == NodeKind::cpu || e.kind == NodeKind::net_switch)) {
    nv.at("pci").fail(fmt::format(
        "field \"pci\" applies to gpu, nic, pcie_switch and nvswitch nodes only, not {}",
        e.kind_name));
  }
  if (nv.has("nccl") && e.kind != NodeKind::gpu && e.kind != NodeKind::nic) {
    nv.at("nccl").fail(
        fmt::format("field \"nccl\" applies to gpu and nic nodes only, not {}", e.kind_name));
  }
}

// "pci" and "nccl" name one device (its bus id, its device number): not a counted entry's.
void read_device_identity(const JsonView& nv, NodeEntry& e) {
  for (const char* f : {"pci", "nccl"}) {
    if (nv.has(f) && e.counted) {
      nv.at(f).fail(fmt::format(
          "field \"{}\" describes one device: give it on an entry without \"count\"", f));
    }
  }
  if (auto v = nv.get("cpuid")) e.cpuid = cpu_identity_field(*v);
  if (auto v = nv.get("pci")) e.pci = pci_identity_field(*v);
  if (auto v = nv.get("nccl")) e.nccl = nccl_device_field(*v, e.kind);
}

void read_role_and_network(const JsonView& nv, NodeEntry& e) {
  if (auto rv = nv.get("role")) {
    const std::string role = rv->as_string();
    if (role != "compute" && role != "storage") {
      rv->fail(fmt::format("unknown NIC role \"{}\"; expected compute or storage", role));
    }
    e.scale_out = role == "compute";
  }
  if (auto netv = nv.get("network")) e.network = fabric_kind_field(*netv);
}

void read_count(const JsonView& nv, NodeEntry& e) {
  e.counted = nv.has("count");
  if (!e.counted) return;
  e.count = nv.at("count").as_integer();
  if (e.count < 1 || e.count > kMaxNodesPerEntry) {
    nv.at("count").fail(fmt::format("expected a count from 1 to {}", kMaxNodesPerEntry));
  }
}

void read_gpu_model(const JsonView& nv, const GpuModels& models, NodeEntry& e) {
  e.model = nv.string_or("model", "");
  if (e.kind != NodeKind::gpu) return;
  if (!nv.has("model")) nv.fail("missing required field \"model\" (the GPU model)");
  e.gpu = lookup_gpu(models, e.model);
  if (e.gpu) return;
  std::vector<std::string> names = gpu_model_names();
  for (const auto& [n, m] : models)
    names.push_back(n);
  nv.at("model").fail(
      fmt::format("unknown GPU model \"{}\"; known models: {} (or define it "
                  "under \"gpu_models\")",
                  e.model, fmt::join(names, ", ")));
}

// A CPU list as nvidia-smi prints it under CPU Affinity (sim/topo/cpu_list.hpp).
std::string cpu_list(const JsonView& v) {
  const std::string list = v.as_string();
  if (const auto problem = cpu_list_problem(list)) {
    v.fail(fmt::format("CPU list \"{}\": {}", list, *problem));
  }
  return list;
}

void read_cpu_vendor_and_cores(const JsonView& nv, NodeEntry& e) {
  if (e.kind == NodeKind::cpu) {
    e.vendor = nv.at("vendor").as_string();
    static const std::set<std::string> kVendors{"intel", "amd", "nvidia", "ibm", "other"};
    if (kVendors.count(e.vendor) == 0) {
      nv.at("vendor").fail(fmt::format(
          "unknown CPU vendor \"{}\"; expected one of intel, amd, nvidia, ibm, other", e.vendor));
    }
  }
  auto cv = nv.get("cores");
  if (!cv) return;
  if (!cv->is_array()) {
    e.cores.assign(static_cast<std::size_t>(e.count), cpu_list(*cv));
    return;
  }
  for (const auto& c : cv->elements())
    e.cores.push_back(cpu_list(c));
  if (static_cast<std::int64_t>(e.cores.size()) != e.count) {
    cv->fail(fmt::format("expected {} entries, one per node of the count, got {}", e.count,
                         e.cores.size()));
  }
}

// The checks run in the order of the fields' first use, so the first problem is reported.
NodeEntry read_entry(const JsonView& nv, const GpuModels& models) {
  nv.expect_only({"id", "kind", "count", "model", "note", "vendor", "pcie_p2p", "memory_bandwidth",
                  "socket", "numa_node", "cores", "port_bandwidth", "role", "network", "cpuid",
                  "pci", "nccl"});
  NodeEntry e;
  e.base_id = nv.at("id").as_string();
  if (e.base_id.empty()) nv.at("id").fail("expected a non-empty id");
  e.kind_name = nv.at("kind").as_string();
  e.kind = read_kind(nv, e.kind_name);
  check_kind_fields(nv, e);
  read_role_and_network(nv, e);
  read_count(nv, e);
  read_gpu_model(nv, models, e);
  if (auto pb = nv.get("port_bandwidth")) e.port_bandwidth_Bps = bandwidth_field(*pb);
  if (auto mb = nv.get("memory_bandwidth")) e.memory_bandwidth_Bps = bandwidth_field(*mb);
  read_cpu_vendor_and_cores(nv, e);
  read_device_identity(nv, e);
  return e;
}

// The `i`-th CPU of entry `e`; socket and NUMA node default to the CPU's ordinal in `topo`.
CpuInfo make_cpu(const JsonView& nv, const NodeEntry& e, std::int64_t i, const Topology& topo) {
  const TemplateVars vars{{"i", i}};
  CpuInfo cpu;
  cpu.vendor = e.vendor;
  cpu.model = e.model;
  cpu.pcie_p2p = nv.bool_or("pcie_p2p", true);
  cpu.memory_bandwidth_Bps = e.memory_bandwidth_Bps.value_or(0);
  if (auto s = nv.get("socket")) cpu.socket = template_int(*s, vars);
  if (auto n = nv.get("numa_node")) {
    cpu.numa_node = template_int(*n, vars);
  } else {
    cpu.numa_node = static_cast<int>(topo.count(NodeKind::cpu));
  }
  if (!nv.has("socket")) cpu.socket = static_cast<int>(topo.count(NodeKind::cpu));
  if (!e.cores.empty()) cpu.cores = e.cores[static_cast<std::size_t>(i)];
  cpu.cpuid = e.cpuid;
  return cpu;
}

Node make_node(const JsonView& nv, const NodeEntry& e, std::int64_t i, const Topology& topo) {
  Node node;
  node.id = e.counted ? e.base_id + std::to_string(i) : e.base_id;
  node.kind = e.kind;
  node.model = e.model;
  node.gpu = e.gpu;
  if (e.kind == NodeKind::cpu) node.cpu = make_cpu(nv, e, i, topo);
  if (e.kind == NodeKind::nic) {
    node.nic = NicInfo{e.model, e.port_bandwidth_Bps.value_or(0), e.scale_out, -1, e.network};
  }
  node.pci = e.pci;
  node.nccl = e.nccl;
  return node;
}

}  // namespace

void parse_nodes(const JsonView& nodes_view, const GpuModels& models, Topology& topo) {
  // Every entry is read and checked before any is expanded: a bad entry after a large count is
  // refused without building that count's nodes first.
  std::vector<std::pair<JsonView, NodeEntry>> entries;
  for (const auto& nv : nodes_view.elements())
    entries.emplace_back(nv, read_entry(nv, models));
  std::map<std::string, std::string> where_defined;  // node id -> JSON pointer of its entry
  for (const auto& [nv, e] : entries) {
    for (std::int64_t i = 0; i < e.count; ++i) {
      Node node = make_node(nv, e, i, topo);
      auto [it, inserted] = where_defined.emplace(node.id, nv.pointer());
      if (!inserted) {
        nv.at("id").fail(
            fmt::format("duplicate node id \"{}\" (already defined at {})", node.id, it->second));
      }
      topo.add_node(std::move(node));
    }
  }
}

}  // namespace linksim::topo
