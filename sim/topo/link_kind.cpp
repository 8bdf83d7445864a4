#include "sim/topo/link_kind.hpp"

#include <fmt/format.h>

#include <array>

namespace linksim::topo {
namespace {

struct KindName {
  LinkKind kind;
  std::string_view name;
};
constexpr std::array<KindName, 9> kKindNames{{
    {LinkKind::nvlink, "nvlink"},
    {LinkKind::pcie, "pcie"},
    {LinkKind::upi, "upi"},
    {LinkKind::qpi, "qpi"},
    {LinkKind::xgmi, "xgmi"},
    {LinkKind::soc, "soc"},
    {LinkKind::c2c, "c2c"},
    {LinkKind::infiniband, "infiniband"},
    {LinkKind::ethernet, "ethernet"},
}};

constexpr const char* kPcieSource =
    "seed article table (PCIe 3.0/4.0/5.0 x16 = 16/32/64 GB/s per direction, nominal; after "
    "128b/130b encoding 15.75/31.5/63 GB/s, PCI-SIG via Wikipedia 'PCI Express')";
constexpr const char* kNvlinkSource =
    "NVIDIA: NVLink 2/3/4 = 25 GB/s per link per direction (V100 6 links 150 GB/s, A100 12 links "
    "300 GB/s, H100 18 links 450 GB/s per direction; nvidia-smi nvlink -s reports 25 GB/s per "
    "link); NVLink 1 = 20 GB/s (P100); NVLink 5 = 50 GB/s (B200, 18 links 900 GB/s)";
// Per-hop latencies are wire-plus-switch figures of the order reported by vendors; what a
// program sees end to end (launch, protocol, copy-engine set-up) is modelled above the links.
constexpr const char* kLatencySource =
    "order-of-magnitude per-hop latency (PCIe switch port-to-port ~0.1-0.2 us per Broadcom "
    "PEX datasheets; NVLink/NVSwitch hop ~0.1-0.3 us); end-to-end software latency is modelled "
    "separately, and calibration replaces these figures";

}  // namespace

std::string_view to_string(LinkKind kind) {
  for (const auto& k : kKindNames) {
    if (k.kind == kind) return k.name;
  }
  return "unknown";
}

std::optional<LinkKind> link_kind_from_string(std::string_view name) {
  for (const auto& k : kKindNames) {
    if (k.name == name) return k.kind;
  }
  return std::nullopt;
}

std::vector<std::string> link_kind_names() {
  std::vector<std::string> out;
  for (const auto& k : kKindNames)
    out.emplace_back(k.name);
  return out;
}

// Data table, one case per link kind and generation: one function so rows compare; not split.
LinkDefaultsResult link_defaults(const LinkSpec& spec) {
  LinkDefaults d;
  d.basis = "theoretical";
  const int lanes = spec.lanes > 0 ? spec.lanes : 1;
  switch (spec.kind) {
    case LinkKind::nvlink: {
      // Per link, per direction (GB/s) by generation.
      constexpr std::array<double, 6> per_link_GBps{0, 20, 25, 25, 25, 50};
      if (spec.generation < 1 || spec.generation > 5) {
        return {std::nullopt,
                fmt::format("NVLink generation {} is not known; expected 1 to 5", spec.generation)};
      }
      d.bandwidth_Bps = per_link_GBps[spec.generation] * 1e9 * lanes;
      d.latency_s = 0.2e-6;
      d.source = std::string(kNvlinkSource) + "; latency: " + kLatencySource;
      return {d, ""};
    }
    case LinkKind::pcie: {
      // Nominal per lane, per direction (GB/s): doubles each generation from 0.25 (1.0).
      constexpr std::array<double, 7> per_lane_GBps{0, 0.25, 0.5, 1, 2, 4, 8};
      if (spec.generation < 1 || spec.generation > 6) {
        return {std::nullopt,
                fmt::format("PCIe generation {} is not known; expected 1 to 6", spec.generation)};
      }
      const int width = spec.width;
      if (width != 1 && width != 2 && width != 4 && width != 8 && width != 16 && width != 32) {
        return {std::nullopt,
                fmt::format("PCIe width x{} is not valid; expected 1, 2, 4, 8, 16 or 32", width)};
      }
      d.bandwidth_Bps = per_lane_GBps[spec.generation] * 1e9 * width;
      d.latency_s = 0.25e-6;
      d.source = std::string(kPcieSource) + "; latency: " + kLatencySource;
      return {d, ""};
    }
    case LinkKind::upi: {
      // UPI 1.0: 10.4 GT/s x 2 B = 20.8 GB/s per link per direction; UPI 2.0: 16 GT/s -> 32 GB/s.
      const int gen = spec.generation == 0 ? 1 : spec.generation;
      if (gen != 1 && gen != 2) {
        return {std::nullopt, fmt::format("UPI generation {} is not known; expected 1 or 2", gen)};
      }
      d.bandwidth_Bps = (gen == 1 ? 20.8e9 : 32e9) * lanes;
      d.latency_s = 0.1e-6;
      d.source =
          "Intel UPI: 10.4 GT/s (Skylake/Cascade Lake/Ice Lake, 20.8 GB/s per link per direction), "
          "16 GT/s UPI 2.0 (Sapphire Rapids, 32 GB/s); Intel Xeon Scalable product briefs";
      return {d, ""};
    }
    case LinkKind::qpi: {
      d.bandwidth_Bps = 19.2e9 * lanes;  // 9.6 GT/s x 2 B
      d.latency_s = 0.1e-6;
      d.source = "Intel QPI 9.6 GT/s = 19.2 GB/s per link per direction (Xeon E5 v3/v4 datasheets)";
      return {d, ""};
    }
    case LinkKind::xgmi: {
      // xGMI-2 (Rome/Milan): x16 at 18 GT/s ~ 36 GB/s per direction; xGMI-3 (Genoa): 32 GT/s.
      const int gen = spec.generation == 0 ? 2 : spec.generation;
      if (gen != 2 && gen != 3) {
        return {std::nullopt, fmt::format("xGMI generation {} is not known; expected 2 or 3", gen)};
      }
      d.bandwidth_Bps = (gen == 2 ? 36e9 : 64e9) * lanes;
      d.latency_s = 0.1e-6;
      d.source =
          "AMD EPYC socket-to-socket Infinity Fabric (xGMI): x16 links at 18 GT/s (Rome/Milan) or "
          "32 GT/s (Genoa), AMD EPYC architecture white papers";
      return {d, ""};
    }
    case LinkKind::soc: {
      // Between NUMA domains of one socket (AMD NPS2/NPS4, Intel SNC): the on-die fabric is
      // rarely the bottleneck for PCIe traffic; 100 GB/s per direction is an assumed figure.
      d.bandwidth_Bps = 100e9 * lanes;
      d.latency_s = 0.05e-6;
      d.basis = "effective";
      d.source =
          "assumed: on-die fabric between NUMA domains of one socket, not a bottleneck for "
          "PCIe traffic (AMD Infinity Fabric / Intel mesh); override per machine";
      return {d, ""};
    }
    case LinkKind::c2c: {
      d.bandwidth_Bps = 450e9 * lanes;
      d.latency_s = 0.2e-6;
      d.source = "NVIDIA Grace Hopper: NVLink-C2C 900 GB/s bidirectional (450 GB/s per direction)";
      return {d, ""};
    }
    case LinkKind::infiniband: {
      struct Rate {
        std::string_view name;
        double gbit;
      };
      constexpr std::array<Rate, 6> rates{
          {{"qdr", 40}, {"fdr", 56}, {"edr", 100}, {"hdr", 200}, {"ndr", 400}, {"xdr", 800}}};
      for (const auto& r : rates) {
        if (r.name == spec.rate) {
          d.bandwidth_Bps = r.gbit * 1e9 / 8 * lanes;
          d.latency_s = 0.6e-6;
          d.source =
              "InfiniBand Trade Association data rates per 4x port (EDR 100, HDR 200, NDR 400, "
              "XDR 800 Gb/s); ~0.6 us per hop including switch (NVIDIA Quantum switch briefs)";
          return {d, ""};
        }
      }
      return {std::nullopt, fmt::format("InfiniBand rate \"{}\" is not known; expected one of "
                                        "qdr, fdr, edr, hdr, ndr, xdr",
                                        spec.rate)};
    }
    case LinkKind::ethernet: {
      constexpr std::array<double, 9> speeds{1, 10, 25, 40, 50, 100, 200, 400, 800};
      for (double g : speeds) {
        if (spec.rate == fmt::format("{}g", g)) {
          d.bandwidth_Bps = g * 1e9 / 8 * lanes;
          d.latency_s = 2e-6;
          d.source = "IEEE 802.3 line rates; ~2 us per hop for RoCE/TCP through a switch";
          return {d, ""};
        }
      }
      return {std::nullopt, fmt::format("Ethernet rate \"{}\" is not known; expected one of 1g, "
                                        "10g, 25g, 40g, 50g, 100g, 200g, 400g, 800g",
                                        spec.rate)};
    }
  }
  return {std::nullopt, "unknown link kind"};
}

std::string link_label(LinkKind kind, int generation, int lanes, int width) {
  switch (kind) {
    case LinkKind::nvlink:
      return fmt::format("NVLink {} x{}", generation, lanes);
    case LinkKind::pcie:
      return fmt::format("PCIe {}.0 x{}", generation, width);
    case LinkKind::upi:
      return fmt::format("UPI x{}", lanes);
    case LinkKind::qpi:
      return fmt::format("QPI x{}", lanes);
    case LinkKind::xgmi:
      return fmt::format("xGMI x{}", lanes);
    case LinkKind::soc:
      return "on-die fabric";
    case LinkKind::c2c:
      return "NVLink-C2C";
    case LinkKind::infiniband:
      return fmt::format("InfiniBand x{}", lanes);
    case LinkKind::ethernet:
      return fmt::format("Ethernet x{}", lanes);
  }
  return "link";
}

}  // namespace linksim::topo
