// NCCL's names for graph patterns and path types, and the graph dump's writer.
#include "sim/coll/nccl_graph.hpp"

#include <fmt/format.h>

#include <array>
#include <cstdio>

namespace linksim::coll {
namespace {

constexpr std::array<std::string_view, 12> kPathTypeNames = {
    "LOC", "NVL", "NVB", "C2C", "PIX", "PXB", "P2C", "PXN", "PHB", "SYS", "NET", "DIS"};

// NCCL's xmlSetAttrFloat: "%g" of a float.
std::string nccl_float(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%g", static_cast<double>(static_cast<float>(value)));
  return buffer;
}

// NCCL's xmlSetAttrLong: "%#" PRIx64, so 0 is "0" and 1 is "0x1".
std::string nccl_hex(std::int64_t value) {
  const auto u = static_cast<std::uint64_t>(value);
  return u == 0 ? "0" : fmt::format("{:#x}", u);
}

}  // namespace

std::string_view to_string(NcclGraphPattern p) {
  switch (p) {
    case NcclGraphPattern::balanced_tree:
      return "balanced tree";
    case NcclGraphPattern::split_tree:
      return "split tree";
    case NcclGraphPattern::tree:
      return "tree";
    case NcclGraphPattern::ring:
      return "ring";
    case NcclGraphPattern::nvls:
      return "nvls";
    case NcclGraphPattern::collnet_direct:
      return "collnet direct";
  }
  return "?";
}

std::string_view to_string(NcclPathType t) {
  return kPathTypeNames[static_cast<std::size_t>(t)];
}

std::optional<NcclPathType> nccl_path_type(std::string_view name) {
  for (std::size_t i = 0; i < kPathTypeNames.size(); ++i) {
    if (kPathTypeNames[i] == name) return static_cast<NcclPathType>(i);
  }
  return std::nullopt;
}

std::string_view nccl_graph_name(int id) {
  switch (id) {
    case 0:
      return "ring";
    case 1:
      return "tree";
    case 2:
      return "collnet chain";
    case 3:
      return "nvls";
    case 4:
      return "collnet direct";
    default:
      return "graph";
  }
}

std::string to_nccl_graph_xml(const NcclGraphDump& dump) {
  if (dump.graphs.empty()) return fmt::format("<graphs version=\"{}\"/>\n", dump.version);
  std::string out = fmt::format("<graphs version=\"{}\">\n", dump.version);
  for (const auto& g : dump.graphs) {
    out += fmt::format(
        "  <graph id=\"{}\" pattern=\"{}\" crossnic=\"{}\" nchannels=\"{}\" speedintra=\"{}\" "
        "speedinter=\"{}\" latencyinter=\"{}\" typeintra=\"{}\" typeinter=\"{}\" "
        "samechannels=\"{}\"",
        g.id, static_cast<int>(g.pattern), g.crossnic ? 1 : 0, g.nchannels,
        nccl_float(g.speed_intra_Bps / 1e9), nccl_float(g.speed_inter_Bps / 1e9),
        nccl_float(g.latency_inter_s * 1e6), to_string(g.type_intra), to_string(g.type_inter),
        g.same_channels ? 1 : 0);
    if (g.channels.empty()) {
      out += "/>\n";
      continue;
    }
    out += ">\n";
    for (const auto& c : g.channels) {
      if (c.nets.empty() && c.gpus.empty()) {
        out += "    <channel/>\n";
        continue;
      }
      out += "    <channel>\n";
      // NCCL writes the entry NIC before the GPUs and the exit NIC after them.
      if (!c.nets.empty()) out += fmt::format("      <net dev=\"{}\"/>\n", nccl_hex(c.nets[0]));
      for (const auto& gpu : c.gpus) {
        out += fmt::format("      <gpu dev=\"{}\"", nccl_hex(gpu.dev));
        if (gpu.rank >= 0) out += fmt::format(" rank=\"{}\"", gpu.rank);
        out += "/>\n";
      }
      for (std::size_t n = 1; n < c.nets.size(); ++n)
        out += fmt::format("      <net dev=\"{}\"/>\n", nccl_hex(c.nets[n]));
      out += "    </channel>\n";
    }
    out += "  </graph>\n";
  }
  out += "</graphs>\n";
  return out;
}

}  // namespace linksim::coll
