#include "sim/report/copy_bench_table.hpp"

#include <fmt/format.h>

namespace linksim::report {
namespace {

std::string matrix(const std::string& title, const std::string& corner,
                   const std::vector<std::vector<double>>& m, double scale) {
  std::string out = title + "\n" + fmt::format("{:>6}", corner);
  for (std::size_t j = 0; j < m.size(); ++j)
    out += fmt::format(" {:6d}", j);
  out += "\n";
  for (std::size_t i = 0; i < m.size(); ++i) {
    out += fmt::format("{:6d}", i);
    for (double v : m[i])
      out += fmt::format(" {:6.2f}", v * scale);
    out += "\n";
  }
  return out;
}

}  // namespace

std::string format_p2p_test(const topo::Topology& topo) {
  const auto gpus = topo.nodes_of(topo::NodeKind::gpu);
  std::string out = fmt::format(
      "[P2P (Peer-to-Peer) GPU Bandwidth Latency Test] simulated by linksim on {}\n", topo.name);
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    out += fmt::format("Device: {}, {}, pciBusID: sim\n", i, topo.node(gpus[i]).model);
  }
  const auto access = coll::peer_access(topo);
  out += "P2P Connectivity Matrix\n     D\\D";
  for (std::size_t j = 0; j < gpus.size(); ++j)
    out += fmt::format(" {:5d}", j);
  out += "\n";
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    out += fmt::format("{:6d}\t", i);
    for (std::size_t j = 0; j < gpus.size(); ++j)
      out += fmt::format(" {:5d}", access[i][j] ? 1 : 0);
    out += "\n";
  }
  const coll::CopyMatrices off = coll::p2p_matrices(topo, false);
  const coll::CopyMatrices on = coll::p2p_matrices(topo, true);
  out += matrix("Unidirectional P2P=Disabled Bandwidth Matrix (GB/s)", "D\\D", off.uni_Bps, 1e-9);
  out += matrix("Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)", "D\\D",
                on.uni_Bps, 1e-9);
  out += matrix("Bidirectional P2P=Disabled Bandwidth Matrix (GB/s)", "D\\D", off.bidi_Bps, 1e-9);
  out += matrix("Bidirectional P2P=Enabled Bandwidth Matrix (GB/s)", "D\\D", on.bidi_Bps, 1e-9);
  out += matrix("P2P=Disabled Latency Matrix (us)", "GPU", off.latency_s, 1e6);
  out += matrix("P2P=Enabled Latency (P2P Writes) Matrix (us)", "GPU", on.latency_s, 1e6);
  out +=
      "\nNOTE: simulated figures; pairs without peer access fall back to copies staged through "
      "host memory, as the CUDA runtime does.\n";
  return out;
}

std::string format_bandwidth_test(const topo::Topology& topo) {
  std::string out = fmt::format("[CUDA Bandwidth Test] simulated by linksim on {}\n", topo.name);
  for (auto g : topo.nodes_of(topo::NodeKind::gpu)) {
    const auto f = coll::bandwidth_test(topo, g);
    out += fmt::format(" Device {}: {}\n Quick Mode\n\n", topo.node(g).ordinal, topo.node(g).model);
    const auto block = [&](const char* title, double bps) {
      return fmt::format(
          " {}\n   PINNED Memory Transfers\n   Transfer Size (Bytes)\tBandwidth(GB/s)\n"
          "   {:.0f}\t\t\t{:.1f}\n\n",
          title, coll::kBandwidthTestBytes, bps / 1e9);
    };
    out += block("Host to Device Bandwidth, 1 Device(s)", f.h2d_Bps);
    out += block("Device to Host Bandwidth, 1 Device(s)", f.d2h_Bps);
    out += block("Device to Device Bandwidth, 1 Device(s)", f.d2d_Bps);
  }
  return out;
}

}  // namespace linksim::report
