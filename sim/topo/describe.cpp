#include "sim/topo/describe.hpp"

#include <fmt/format.h>

#include "sim/core/units.hpp"

namespace linksim::topo {
namespace {

std::string gpu_list(const MachineSummary& s) {
  std::vector<std::string> parts;
  for (const auto& [model, n] : s.gpu_models)
    parts.push_back(fmt::format("{}x {}", n, model));
  return fmt::format("{}", fmt::join(parts, " + "));
}

std::string pair_text(const Topology& topo, const PairFigure& p) {
  return fmt::format("GPU{} -> GPU{}: {} payload via {}", topo.node(p.a).ordinal,
                     topo.node(p.b).ordinal, units::format_bandwidth(p.bandwidth_Bps),
                     to_string(p.transport));
}

}  // namespace

std::string describe_summary(const Topology& topo, const MachineSummary& s) {
  std::string out = "Summary\n";
  out += fmt::format("  machine             {} ({})\n", topo.title, topo.name);
  out += fmt::format("  GPUs                {}\n", gpu_list(s));
  std::vector<std::string> links;
  for (const auto& [label, n] : s.link_labels)
    links.push_back(fmt::format("{}x {}", n, label));
  out += fmt::format("  links               {}\n", fmt::join(links, ", "));
  out += fmt::format("  switches            {} NVSwitch, {} PCIe switch\n", s.nvswitch_count,
                     s.pcie_switch_count);
  out += fmt::format("  host                {} socket(s), {} NUMA node(s), {} NIC(s)\n",
                     s.socket_count, s.cpu_count, s.nic_count);
  out += fmt::format("  per-GPU injection   NVLink {}, PCIe/host {} (per direction)\n",
                     units::format_bandwidth(s.nvlink_injection_Bps),
                     units::format_bandwidth(s.pcie_injection_Bps));
  out += fmt::format("  bisection           {}\n",
                     s.bisection_Bps ? units::format_bandwidth(*s.bisection_Bps) + " per direction"
                                     : std::string("n/a (more than 16 GPUs)"));
  if (s.pairs_sampled()) {
    out += fmt::format("  pairs routed        from {} of {} GPUs (spread evenly) to every GPU\n",
                       s.pair_sources, s.gpu_count);
  }
  if (s.slowest_pair)
    out += fmt::format("  slowest pair        {}\n", pair_text(topo, *s.slowest_pair));
  if (s.fastest_pair)
    out += fmt::format("  fastest pair        {}\n", pair_text(topo, *s.fastest_pair));
  if (topo.instance) {
    const auto& i = *topo.instance;
    out += fmt::format("  instance            {} {}, {}, network {}\n", i.provider, i.name,
                       i.price_per_hour_usd ? fmt::format("${:.2f}/h", *i.price_per_hour_usd)
                                            : std::string("no list price"),
                       i.network.empty() ? "-" : i.network);
  }
  return out;
}

std::string explain_machine(const Topology& topo, const MachineSummary& s) {
  std::string out = fmt::format("{}: OK\n{}\n", topo.file, topo.title);
  if (!topo.description.empty()) out += topo.description + "\n";
  out += fmt::format("\n{} GPU(s): {}.\n", s.gpu_count, gpu_list(s));
  const auto gpus = topo.nodes_of(NodeKind::gpu);
  if (!gpus.empty()) {
    const GpuModel& m = *topo.node(gpus.front()).gpu;
    out += fmt::format("Each {} has {} of memory at {}", m.name,
                       units::format_bytes_binary(m.memory_bytes),
                       units::format_bandwidth(m.hbm_bandwidth_Bps));
    auto fp16 = m.peak_flops.find("fp16");
    if (fp16 != m.peak_flops.end())
      out += fmt::format(", {:.0f} TFLOP/s dense FP16", fp16->second / 1e12);
    out += ".\n";
  }
  // How GPU pairs talk.
  out += "GPU pairs talk by";
  if (s.pairs_sampled()) {
    out += fmt::format(" (routes from {} of the {} GPUs, spread evenly, to every GPU)",
                       s.pair_sources, s.gpu_count);
  }
  out += ":";
  for (const auto& [t, n] : s.transports)
    out += fmt::format(" {} ({} ordered pairs)", t, n);
  out += "\n";
  if (s.transports.count("host-bounce")) {
    out +=
        "  Peer-to-peer is not available between some GPUs: their traffic is staged through "
        "host memory, crossing PCIe twice.\n";
  }
  if (s.transports.count("nvlink-relay")) {
    out += "  Some pairs have no direct NVLink and relay through a neighbour GPU (NCCL's NVB).\n";
  }
  if (s.slowest_pair && s.fastest_pair && s.fastest_pair->bandwidth_Bps > 0) {
    out += fmt::format("Fastest pair {}; slowest {} ({:.1f}x apart{}).\n",
                       units::format_bandwidth(s.fastest_pair->bandwidth_Bps),
                       units::format_bandwidth(s.slowest_pair->bandwidth_Bps),
                       s.fastest_pair->bandwidth_Bps / s.slowest_pair->bandwidth_Bps,
                       s.pairs_sampled() ? ", among the pairs routed" : "");
  }
  // Host side.
  for (NodeId c : topo.nodes_of(NodeKind::cpu)) {
    const auto& cpu = *topo.node(c).cpu;
    if (!cpu.pcie_p2p) {
      out += fmt::format("{} ({} {}) does not allow PCIe peer-to-peer through it.\n",
                         topo.node(c).id, cpu.vendor, cpu.model);
    }
  }
  std::size_t gpus_no_p2p = 0;
  for (NodeId g : gpus)
    gpus_no_p2p += topo.node(g).gpu->pcie_p2p ? 0 : 1;
  if (gpus_no_p2p > 0) {
    out += fmt::format("{} GPU(s) have PCIe peer-to-peer disabled by their driver (GeForce).\n",
                       gpus_no_p2p);
  }
  for (const auto& note : topo.notes)
    out += "note: " + note + "\n";
  return out;
}

std::string one_line(const Topology& topo) {
  std::map<std::string, int> models;
  for (NodeId g : topo.nodes_of(NodeKind::gpu))
    models[topo.node(g).model]++;
  std::vector<std::string> parts;
  for (const auto& [m, n] : models)
    parts.push_back(fmt::format("{}x {}", n, m));
  std::string price = topo.instance && topo.instance->price_per_hour_usd
                          ? fmt::format("${:.2f}/h ({})", *topo.instance->price_per_hour_usd,
                                        topo.instance->price_as_of)
                          : "";
  return fmt::format("{:<28} {:<28} {:<19} {}", topo.name, fmt::join(parts, " + "), price,
                     topo.title);
}

}  // namespace linksim::topo
