#include "sim/topo/cluster_loader.hpp"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>

#include "sim/core/error.hpp"
#include "sim/core/nccl_proto_list.hpp"
#include "sim/core/schema_check.hpp"
#include "sim/topo/cluster_domain.hpp"
#include "sim/topo/loader.hpp"
#include "sim/topo/nccl_env_read.hpp"

namespace linksim::topo {
namespace fs = std::filesystem;
namespace {

constexpr double kMaxOversubscription = 64;
constexpr int kMaxSpines = 4096;

int bounded_int(const JsonView& v, int lo, int hi, const char* what) {
  const std::int64_t x = v.as_integer();
  if (x < lo || x > hi) v.fail(fmt::format("expected {} from {} to {}, got {}", what, lo, hi, x));
  return static_cast<int>(x);
}

double fabric_latency(const JsonView& v, bool zero_ok) {
  const double s = v.as_time_s();
  if (!(zero_ok ? s >= 0 : s > 0) || s > kMaxLatency_s) {
    v.fail(fmt::format("latency \"{}\" is absurd; expected {} and at most 1 ms", v.as_string(),
                       zero_ok ? "0 or more" : "more than 0"));
  }
  return s;
}

template <typename E>
E enum_field(const JsonView& v, std::optional<E> (*parse)(std::string_view), const char* what,
             const char* names) {
  auto e = parse(v.as_string());
  if (!e) v.fail(fmt::format("unknown {} \"{}\"; expected one of {}", what, v.as_string(), names));
  return *e;
}

// NCCL_PROTO as NCCL reads it (sim/core/nccl_proto_list.hpp), an error naming the JSON path.
NcclProtocolMask parse_protocol_list(const JsonView& v) {
  try {
    return parse_nccl_protocol_list(v.as_string());
  } catch (const NcclListError& e) {
    v.fail(e.what());
  }
}

// "nccl_env": what the network plugin sets in NCCL's environment (fabric.hpp NcclEnvDefaults).
NcclEnvDefaults parse_nccl_env(const JsonView& ev) {
  ev.expect_only({"NCCL_PROTO", "NCCL_BUFFSIZE", "NCCL_P2P_NET_CHUNKSIZE", "NCCL_NVLS_CHUNKSIZE",
                  "NCCL_P2P_DISABLE", "NCCL_P2P_LEVEL", "NCCL_SHM_DISABLE", "NCCL_NET_GDR_LEVEL",
                  "NCCL_NTHREADS", "source", "note"});
  NcclEnvDefaults env;
  // The variables nccl_env_read.hpp reads, kept as the environment's text (a whole number may be
  // given as a JSON integer) and checked now by the environment's rules, the error naming the
  // JSON path; NCCL_BUFFSIZE stays a number, read below.
  for (const std::string_view name : nccl_environment_variables()) {
    if (name == "NCCL_BUFFSIZE") continue;
    const auto v = ev.get(std::string(name));
    if (!v) continue;
    env.variables[std::string(name)] =
        v->is_number() ? std::to_string(v->as_integer()) : v->as_string();
    std::vector<std::string> notes;
    try {
      read_nccl_environment(
          [&](std::string_view asked) {
            return asked == name ? env.variables[std::string(name)] : std::string();
          },
          notes);
    } catch (const InputError& e) {
      v->fail(e.message());
    }
  }
  if (auto p = ev.get("NCCL_PROTO")) env.protocols = parse_protocol_list(*p);
  if (auto b = ev.get("NCCL_BUFFSIZE")) {
    // NCCL splits the buffer into NCCL_STEPS slots; below 64 KiB a slot holds too little for
    // its kernels, and no platform sets more than a few MiB.
    constexpr std::int64_t kLeast = 64 * 1024;
    constexpr std::int64_t kMost = 1024LL * 1024 * 1024;
    env.buffsize_bytes = static_cast<double>(bounded_int(
        *b, static_cast<int>(kLeast), static_cast<int>(kMost), "a buffer size in bytes"));
  }
  // Past 64 MiB one chunk outgrows any buffer NCCL keeps NCCL_STEPS of them in.
  constexpr int kMostChunk = 64 * 1024 * 1024;
  if (auto c = ev.get("NCCL_P2P_NET_CHUNKSIZE")) {
    // NCCL cuts a chunk into 4 for small sends: below 4 KiB a quarter chunk is under a page.
    constexpr int kLeast = 4 * 1024;
    env.p2p_net_chunk_bytes =
        static_cast<double>(bounded_int(*c, kLeast, kMostChunk, "a chunk size in bytes"));
  }
  if (auto c = ev.get("NCCL_NVLS_CHUNKSIZE")) {
    // NVLS cuts small messages down to 16 KiB chunks itself, so a lower ceiling means nothing.
    constexpr int kLeast = 16 * 1024;
    env.nvls_chunk_bytes =
        static_cast<double>(bounded_int(*c, kLeast, kMostChunk, "a chunk size in bytes"));
  }
  if (auto s = ev.get("source")) env.source = s->as_string();
  if (env.empty()) {
    ev.fail(
        "sets none of NCCL_PROTO, NCCL_BUFFSIZE, NCCL_P2P_NET_CHUNKSIZE, NCCL_NVLS_CHUNKSIZE, "
        "NCCL_P2P_DISABLE, NCCL_P2P_LEVEL, NCCL_SHM_DISABLE, NCCL_NET_GDR_LEVEL and "
        "NCCL_NTHREADS");
  }
  return env;
}

FabricSpec parse_fabric(const JsonView& fv, FabricSpec spec) {
  fv.expect_only({"kind", "shape", "oversubscription", "hosts_per_leaf", "spines", "leaves_per_pod",
                  "switch_latency", "nic_latency", "plugin_latency", "spine_choice", "nic_choice",
                  "in_network_reduction", "gpudirect_rdma", "nccl_env", "note"});
  if (auto e = fv.get("nccl_env")) spec.nccl_env = parse_nccl_env(*e);
  if (auto k = fv.get("kind")) spec.kind = fabric_kind_field(*k);
  if (auto s = fv.get("shape")) {
    spec.shape = enum_field(*s, &fabric_shape_from_string, "fabric shape",
                            "single_switch, rail_optimized, fat_tree, three_tier");
  }
  if (auto o = fv.get("oversubscription")) {
    spec.oversubscription = o->as_number();
    if (!(spec.oversubscription > 0) || spec.oversubscription > kMaxOversubscription) {
      o->fail(fmt::format(
          "oversubscription must be more than 0 and at most {} (1 is non-blocking, 2 is 2:1), "
          "got {}",
          kMaxOversubscription, spec.oversubscription));
    }
  }
  if (auto h = fv.get("hosts_per_leaf")) {
    spec.hosts_per_leaf = bounded_int(*h, 1, kMaxClusterHosts, "a host count");
  }
  if (auto s = fv.get("spines")) spec.spines = bounded_int(*s, 1, kMaxSpines, "a switch count");
  if (auto l = fv.get("leaves_per_pod")) {
    if (spec.shape != FabricShape::three_tier) {
      l->fail("leaves_per_pod applies to the three_tier shape only");
    }
    spec.leaves_per_pod = bounded_int(*l, 1, kMaxSpines, "a leaf count");
  }
  if (auto l = fv.get("switch_latency")) spec.switch_latency_s = fabric_latency(*l, false);
  if (auto l = fv.get("nic_latency")) spec.nic_latency_s = fabric_latency(*l, true);
  if (auto l = fv.get("plugin_latency")) spec.plugin_latency_s = fabric_latency(*l, true);
  if (auto c = fv.get("spine_choice")) {
    spec.spine_choice = enum_field(*c, &spine_choice_from_string, "spine choice", "ecmp, spread");
  }
  if (auto c = fv.get("nic_choice")) {
    spec.nic_choice = enum_field(*c, &nic_choice_from_string, "NIC choice", "nearest, pxn");
  }
  if (auto g = fv.get("gpudirect_rdma")) {
    spec.gpudirect_rdma = enum_field(*g, &gdr_level_from_string, "GPUDirect RDMA level",
                                     "auto, off, pix, pxb, phb, sys");
  }  // NCCL_NET_GDR_LEVEL in nccl_env is the level NCCL reads: it replaces gpudirect_rdma's, except
  // "off" (hardware without GPUDirect RDMA has none at any level).
  if (const auto it = spec.nccl_env.variables.find("NCCL_NET_GDR_LEVEL");
      it != spec.nccl_env.variables.end() && spec.gpudirect_rdma != GdrLevel::off) {
    std::vector<std::string> notes;
    const auto read = read_nccl_environment(
        [&](std::string_view name) {
          return name == "NCCL_NET_GDR_LEVEL" ? it->second : std::string();
        },
        notes);
    if (read.net_gdr_level) spec.gpudirect_rdma = *read.net_gdr_level;
  }

  if (auto r = fv.get("in_network_reduction")) {
    spec.in_network_reduction =
        enum_field(*r, &in_network_reduction_from_string, "in-network reduction", "none, sharp");
    // SHARP runs in NVIDIA's Quantum InfiniBand switches; no other fabric kind has it.
    if (spec.in_network_reduction == InNetworkReduction::sharp &&
        spec.kind != FabricKind::infiniband) {
      r->fail(fmt::format(
          "in-network reduction \"sharp\" needs an infiniband fabric (SHARP runs in Quantum "
          "InfiniBand switches); this fabric is {}",
          to_string(spec.kind)));
    }
  }
  return spec;
}

// The machines per NVLink domain ("nvlink_domain": {"hosts": N}); they must divide the node
// count, and the machine must have NVSwitches to share.
int parse_nvlink_domain(const JsonView& dv, const Topology& machine, int nodes) {
  dv.expect_only({"hosts", "note"});
  const JsonView hv = dv.at("hosts");
  const int hosts = bounded_int(hv, 1, kMaxClusterHosts, "a host count per NVLink domain");
  if (nodes % hosts != 0) {
    hv.fail(fmt::format(
        "{} hosts per NVLink domain do not divide the cluster's {} nodes; expected a divisor "
        "of {}",
        hosts, nodes, nodes));
  }
  if (auto why = nvlink_domain_problem(machine, hosts)) dv.fail(*why);
  return hosts;
}

// The host's file: beside the cluster file, else a shipped machine. Blamed on /cluster/host, so
// a host that is empty, a folder or a special file (/dev/zero, a FIFO) names the cluster file.
std::string resolve_host(const JsonView& hv, const std::string& file) {
  const std::string name = hv.as_string();
  if (name.empty()) hv.fail("expected a machine file or a shipped machine's name, got \"\"");
  const fs::path beside = fs::path(file).parent_path() / name;
  std::error_code ec;
  std::string found;
  if (fs::exists(beside, ec)) {
    found = beside.string();
  } else if (const std::string shipped = resolve_topology_path(name); fs::exists(shipped, ec)) {
    found = shipped;
  } else {
    hv.fail(fmt::format("host machine \"{}\" not found (looked for {} and the shipped machines)",
                        name, beside.string()));
  }
  if (!fs::is_regular_file(found, ec)) {
    hv.fail(fmt::format("host \"{}\" ({}) is not a regular file; expected a machine file", name,
                        found));
  }
  return found;
}

// The host machine, refused before it is parsed when it is a cluster: parsing a cluster loads
// its host, so a cluster naming itself, or two naming each other, would recurse without end.
// (A machine's "base" may not be a cluster either, parse_base.cpp, so no chain of files that
// name each other can come back to a cluster.)
Topology load_host(const JsonView& hv, const std::string& file) {
  const std::string path = resolve_host(hv, file);
  const Json document = read_json_file(path);
  if (document.is_object() && document.contains("cluster")) {
    std::error_code ec;
    if (fs::equivalent(path, file, ec)) {
      hv.fail(
          fmt::format("the host \"{}\" is this cluster file itself; a cluster's host must be "
                      "one machine",
                      hv.as_string()));
    }
    hv.fail(fmt::format("the host \"{}\" is itself a cluster; a cluster's host must be one machine",
                        hv.as_string()));
  }
  return parse_topology(document, path);
}

}  // namespace

FabricKind fabric_kind_field(const JsonView& v) {
  auto kind = fabric_kind_from_string(v.as_string());
  if (!kind) {
    v.fail(fmt::format("unknown network \"{}\"; expected one of {}", v.as_string(),
                       fmt::join(fabric_kind_names(), ", ")));
  }
  return *kind;
}

Topology parse_cluster(const JsonView& root, const std::string& file) {
  root.expect_only({"$schema", "title", "description", "sources", "notes", "cluster"});
  const JsonView cv = root.at("cluster");
  cv.expect_only({"host", "nodes", "rails", "fabric", "nvlink_domain"});
  const JsonView hv = cv.at("host");
  Topology host = load_host(hv, file);
  const JsonView nv = cv.at("nodes");
  int nodes = bounded_int(nv, 1, kMaxClusterHosts, "a node count");
  // An NVLink domain of M machines becomes one host (cluster_domain.hpp): the cluster then has
  // nodes / M hosts, and its rails and fabric are the domain's.
  if (auto dv = cv.get("nvlink_domain")) {
    const int machines_per_host = parse_nvlink_domain(*dv, host, nodes);
    host = build_nvlink_domain(host, machines_per_host);
    nodes /= machines_per_host;
  }
  if (auto rv = cv.get("rails")) {
    int compute = 0;
    for (NodeId n : host.nodes_of(NodeKind::nic))
      compute += host.node(n).nic->scale_out ? 1 : 0;
    const std::int64_t rails = rv->as_integer();
    if (rails != compute) {
      rv->fail(fmt::format("the host \"{}\" has {} compute NICs, so {} rails, not {}", host.name,
                           compute, compute, rails));
    }
  }
  FabricSpec spec = default_fabric(host);
  if (auto fv = cv.get("fabric")) spec = parse_fabric(*fv, spec);
  if (auto why = cluster_problem(host, nodes, spec)) cv.fail(*why);
  Topology topo = build_cluster(host, nodes, spec);
  read_identity(root, file, topo);
  if (topo.title.empty()) root.at("title").fail("expected a non-empty title");
  // After the loader's own checks, which say more; the schema catches what they let through.
  enforce_schema(root.raw(), file, shipped_topology_dir() + "/clusters/schema.json");
  return topo;
}

Topology scale_out(const Topology& machine, int nodes) {
  const Topology& host = machine.is_cluster() ? *machine.cluster->host : machine;
  const FabricSpec spec = machine.is_cluster() ? machine.cluster->fabric : default_fabric(machine);
  if (auto why = cluster_problem(host, nodes, spec)) {
    throw InputError(machine.file, "",
                     fmt::format("cannot run {} on {} nodes: {}", machine.name, nodes, *why));
  }
  Topology out = build_cluster(host, nodes, spec);
  if (machine.is_cluster()) {
    out.title = fmt::format("{} nodes of {}, {} {}", nodes, host.title, to_string(spec.kind),
                            to_string(spec.shape));
  }
  return out;
}

}  // namespace linksim::topo
