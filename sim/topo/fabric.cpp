#include "sim/topo/fabric.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <stdexcept>

namespace linksim::topo {
namespace {

template <typename E>
struct Named {
  E value;
  std::string_view name;
};

constexpr std::array<Named<FabricShape>, 4> kShapes{{
    {FabricShape::single_switch, "single_switch"},
    {FabricShape::rail_optimized, "rail_optimized"},
    {FabricShape::fat_tree, "fat_tree"},
    {FabricShape::three_tier, "three_tier"},
}};
constexpr std::array<Named<SpineChoice>, 2> kSpineChoices{{
    {SpineChoice::ecmp, "ecmp"},
    {SpineChoice::spread, "spread"},
}};
constexpr std::array<Named<NicChoice>, 2> kNicChoices{{
    {NicChoice::nearest, "nearest"},
    {NicChoice::pxn, "pxn"},
}};
constexpr std::array<Named<InNetworkReduction>, 2> kReductions{{
    {InNetworkReduction::none, "none"},
    {InNetworkReduction::sharp, "sharp"},
}};

constexpr std::array<Named<GdrLevel>, 6> kGdrLevels{{
    {GdrLevel::automatic, "auto"},
    {GdrLevel::off, "off"},
    {GdrLevel::pix, "pix"},
    {GdrLevel::pxb, "pxb"},
    {GdrLevel::phb, "phb"},
    {GdrLevel::sys, "sys"},
}};

// One row per fabric kind: its name in files and on the command line, and its figures. A new
// kind is an enum value and a row here. NCCL's own network step latencies (hwLat NET, applied by
// the algorithms) were set on InfiniBand, so InfiniBand adds only its switches here; the other
// kinds add what their transport costs on top.
struct FabricKindRow {
  FabricKind kind;
  std::string_view name;
  FabricFigures figures;
};

// The fitted figures (scripts/fit-efa-latency.py), one per EFA generation with a public
// small-message sweep: per NIC traversal, on top of NCCL's NET step latency; a message between
// hosts crosses two NICs.
constexpr double kEfaV1NicLatency_s = 32.5e-6;
constexpr double kEfaV2NicLatency_s = 4.5e-6;
// aws-ofi-nccl's platform table reports these to NCCL as the network's latency (p4d, p4de, p5
// and p5e 75 us; p5en and every later p instance 35 us).
constexpr double kAofiPlatformLatencyP4P5_s = 75e-6;
constexpr double kAofiPlatformLatencyP5enOn_s = 35e-6;
constexpr std::string_view kEfaEfficiencySource =
    "github.com/stas00/ml-engineering pull 102: EFA v1 0.4 Tbps, about 340 Gbps effective in "
    "all_reduce tests (85%)";

// Data table: one row per kind, read together; not split.
const std::vector<FabricKindRow>& fabric_kind_rows() {
  static const std::vector<FabricKindRow> rows{
      {FabricKind::infiniband,
       "infiniband",
       {LinkKind::infiniband, 0.96,
        "InfiniBand: 64b/66b line coding and packet headers, about 4% (the link payload table)",
        0.13e-6, 0, "theoretical",
        "NVIDIA Quantum switch briefs: about 130 ns port to port; the NIC and verbs costs are in "
        "NCCL's hwLat NET row, measured on InfiniBand",
        0,
        "NCCL's InfiniBand transport (src/transport/net_ib/init.cc): props->latency = 0, \"Not "
        "set\""}},
      {FabricKind::roce,
       "roce",
       {LinkKind::ethernet, 0.90,
        "RoCE v2 over Ethernet: Ethernet, IP, UDP and BTH headers on 4 KiB MTU frames, about 10%",
        0.6e-6, 0.5e-6, "theoretical",
        "Ethernet switch port-to-port latencies of 0.5-0.8 us (Spectrum and Tomahawk class "
        "briefs); RoCE NIC processing about 0.5 us above InfiniBand's",
        0,
        "NCCL's InfiniBand transport (src/transport/net_ib/init.cc): props->latency = 0, \"Not "
        "set\" (RoCE runs on the same transport)"}},
      {FabricKind::efa,
       "efa",
       {LinkKind::ethernet, 0.85, std::string(kEfaEfficiencySource), 0.6e-6, kEfaV1NicLatency_s,
        "fitted",
        "AWS EFA v1 (SRD through libfabric and aws-ofi-nccl): 32.5 us, fitted once on the "
        "reference p3dn x2, x4, x8 and p4de x2 all_reduce sweeps up to 64 KiB by "
        "scripts/fit-efa-latency.py; leave-one-machine-out in docs/ACCURACY.md (multi-node "
        "section)",
        kAofiPlatformLatencyP4P5_s,
        "aws-ofi-nccl v1.16.3 src/platform-aws.cpp: 75 us on p4d.24xlarge and p4de.24xlarge (150 "
        "us on p3dn.24xlarge; the shipped p3dn clusters describe 2019 runs, whose plugin reported "
        "none, and set 0)"}},
      {FabricKind::efa_v2,
       "efa_v2",
       {LinkKind::ethernet, 0.85,
        std::string(kEfaEfficiencySource) + "; assumed the same on EFA v2", 0.6e-6,
        kEfaV2NicLatency_s, "fitted",
        "AWS EFA v2 (p5, p5e): 4.5 us, fitted once on the reference p5 x2 all_reduce sweep (AWS "
        "awsome-distributed-training's nccl-tests README, the stack of its p4de sweep) up to 8 "
        "KiB by scripts/fit-efa-latency.py, with p5's AMD EPYC host (NCCL's model charges an AMD "
        "host 2 us per network step, not 1: 8.0 us when the host was taken for the DGX's Xeons); "
        "the only EFA v2 sweep, so not held out (docs/ACCURACY.md, multi-node section)",
        kAofiPlatformLatencyP4P5_s,
        "aws-ofi-nccl v1.16.3 src/platform-aws.cpp: 75 us on p5 and p5e (\"p5/p5e\")"}},
      {FabricKind::efa_v3,
       "efa_v3",
       {LinkKind::ethernet, 0.85,
        std::string(kEfaEfficiencySource) + "; assumed the same on EFA v3", 0.6e-6,
        kEfaV2NicLatency_s, "assumed",
        "assumed equal to EFA v2's (4.5 us): no public small-message sweep of EFA v3 (p5en, "
        "p6e-gb200)",
        kAofiPlatformLatencyP5enOn_s,
        "aws-ofi-nccl v1.16.3 src/platform-aws.cpp: 35 us on p5en and every later p instance "
        "(\"p-series\")"}},
      {FabricKind::efa_v4,
       "efa_v4",
       {LinkKind::ethernet, 0.85,
        std::string(kEfaEfficiencySource) + "; assumed the same on EFA v4", 0.6e-6,
        kEfaV2NicLatency_s, "assumed",
        "assumed equal to EFA v2's (4.5 us): the one public EFA v4 sweep (P6-B200 x4, "
        "ml-engineering's all_reduce_bench.py) times each call after a barrier, not as "
        "nccl-tests does, so it is held out as a check (docs/ACCURACY.md), not fitted",
        kAofiPlatformLatencyP5enOn_s,
        "aws-ofi-nccl v1.16.3 src/platform-aws.cpp: 35 us on p5en and every later p instance "
        "(\"p-series\")"}},
      {FabricKind::tcpx,
       "tcpx",
       {LinkKind::ethernet, 0.90,
        "assumed: Ethernet payload share; no public nccl-tests sweep of GPUDirect-TCPX to fit",
        0.6e-6, kEfaV1NicLatency_s, "assumed",
        "assumed equal to EFA v1's: no public small-message sweep of GPUDirect-TCPX", 0,
        "unknown: Google's GPUDirect-TCPX plugin is not public; 0, as NCCL's own transports "
        "report"}},
      {FabricKind::tcpxo,
       "tcpxo",
       {LinkKind::ethernet, 0.90,
        "assumed: Ethernet payload share; no public nccl-tests sweep of GPUDirect-TCPXO to fit",
        0.6e-6, kEfaV1NicLatency_s, "assumed",
        "assumed equal to EFA v1's: no public small-message sweep of GPUDirect-TCPXO", 0,
        "unknown: Google's GPUDirect-TCPXO plugin is not public; 0, as NCCL's own transports "
        "report"}},
  };
  return rows;
}

const FabricKindRow& row_of(FabricKind kind) {
  for (const auto& row : fabric_kind_rows()) {
    if (row.kind == kind) return row;
  }
  throw std::logic_error("fabric kind without a row in fabric_kind_rows");
}

template <typename E, std::size_t N>
std::string_view name_of(const std::array<Named<E>, N>& table, E value) {
  for (const auto& e : table) {
    if (e.value == value) return e.name;
  }
  return "?";
}

template <typename E, std::size_t N>
std::optional<E> value_of(const std::array<Named<E>, N>& table, std::string_view name) {
  for (const auto& e : table) {
    if (e.name == name) return e.value;
  }
  return std::nullopt;
}

template <typename E, std::size_t N>
std::vector<std::string> names_of(const std::array<Named<E>, N>& table) {
  std::vector<std::string> out;
  for (const auto& e : table)
    out.emplace_back(e.name);
  return out;
}

}  // namespace

std::string_view to_string(FabricKind kind) {
  return row_of(kind).name;
}
std::string_view to_string(FabricShape shape) {
  return name_of(kShapes, shape);
}
std::string_view to_string(SpineChoice choice) {
  return name_of(kSpineChoices, choice);
}
std::string_view to_string(NicChoice choice) {
  return name_of(kNicChoices, choice);
}
std::string_view to_string(InNetworkReduction reduction) {
  return name_of(kReductions, reduction);
}
std::optional<InNetworkReduction> in_network_reduction_from_string(std::string_view name) {
  return value_of(kReductions, name);
}
std::string_view to_string(GdrLevel level) {
  return name_of(kGdrLevels, level);
}
std::optional<GdrLevel> gdr_level_from_string(std::string_view name) {
  return value_of(kGdrLevels, name);
}
std::optional<FabricKind> fabric_kind_from_string(std::string_view name) {
  for (const auto& row : fabric_kind_rows()) {
    if (row.name == name) return row.kind;
  }
  return std::nullopt;
}
std::optional<FabricShape> fabric_shape_from_string(std::string_view name) {
  return value_of(kShapes, name);
}
std::optional<SpineChoice> spine_choice_from_string(std::string_view name) {
  return value_of(kSpineChoices, name);
}
std::optional<NicChoice> nic_choice_from_string(std::string_view name) {
  return value_of(kNicChoices, name);
}
std::vector<std::string> fabric_kind_names() {
  std::vector<std::string> out;
  for (const auto& row : fabric_kind_rows())
    out.emplace_back(row.name);
  return out;
}
std::vector<std::string> fabric_shape_names() {
  return names_of(kShapes);
}

std::string env_text(const NcclEnvDefaults& env) {
  std::vector<std::string> parts;
  if (env.protocols) parts.push_back("NCCL_PROTO=" + nccl_protocol_list_text(*env.protocols));
  if (env.buffsize_bytes) {
    parts.push_back(fmt::format("NCCL_BUFFSIZE={:.0f}", *env.buffsize_bytes));
  }
  if (env.p2p_net_chunk_bytes) {
    parts.push_back(fmt::format("NCCL_P2P_NET_CHUNKSIZE={:.0f}", *env.p2p_net_chunk_bytes));
  }
  if (env.nvls_chunk_bytes) {
    parts.push_back(fmt::format("NCCL_NVLS_CHUNKSIZE={:.0f}", *env.nvls_chunk_bytes));
  }
  for (const auto& [name, text] : env.variables)
    parts.push_back(fmt::format("{}={}", name, text));
  return fmt::format("{}", fmt::join(parts, " "));
}

const FabricFigures& fabric_figures(FabricKind kind) {
  return row_of(kind).figures;
}

}  // namespace linksim::topo
