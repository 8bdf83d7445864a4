#include "sim/report/copy_bench_table.hpp"

#include <fmt/format.h>

namespace linksim::report {
namespace {

using Matrix = std::vector<std::vector<double>>;

// outputBandwidthMatrix / outputLatencyMatrix: a corner of "   D\\D" or "   GPU", columns
// "%6d " and cells "%6.02f " (each followed by a space, so rows end in one).
std::string sample_matrix(const std::string& corner, const Matrix& m, double scale) {
  std::string out = corner;
  for (std::size_t j = 0; j < m.size(); ++j)
    out += fmt::format("{:6d} ", j);
  out += "\n";
  for (std::size_t i = 0; i < m.size(); ++i) {
    out += fmt::format("{:6d} ", i);
    for (double v : m[i])
      out += fmt::format("{:6.2f} ", v * scale);
    out += "\n";
  }
  return out;
}

std::string latency_block(const coll::CopyMatrices& m) {
  return sample_matrix("   GPU", m.latency_s, 1e6) + "\n" +
         sample_matrix("   CPU", m.cpu_latency_s, 1e6);
}

}  // namespace

std::string format_p2p_test(const topo::Topology& topo, const P2pTestOptions& options) {
  const auto gpus = topo.nodes_of(topo::NodeKind::gpu);
  const std::size_t n = gpus.size();
  std::string out = "[P2P (Peer-to-Peer) GPU Bandwidth Latency Test]\n";
  for (std::size_t i = 0; i < n; ++i) {
    out += fmt::format("Device: {}, {}, pciBusID: {:x}, pciDeviceID: {:x}, pciDomainID:{:x}\n", i,
                       topo.node(gpus[i]).model, i, 0, 0);
  }
  const auto access = coll::peer_access(topo);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      if (i == j) continue;
      out += fmt::format("Device={} {} Access Peer Device={}\n", i, access[i][j] ? "CAN" : "CANNOT",
                         j);
    }
  }
  out +=
      "\n***NOTE: In case a device doesn't have P2P access to other one, it falls back to normal "
      "memcopy procedure.\nSo you can see lesser Bandwidth (GB/s) and unstable Latency (us) in "
      "those cases.\n\n";
  out += "P2P Connectivity Matrix\n     D\\D";
  for (std::size_t j = 0; j < n; ++j)
    out += fmt::format("{:6d}", j);
  out += "\n";
  for (std::size_t i = 0; i < n; ++i) {
    out += fmt::format("{:6d}\t", i);
    for (std::size_t j = 0; j < n; ++j)
      out += fmt::format("{:6d}", access[i][j] ? 1 : 0);
    out += "\n";
  }
  const coll::CopyMatrices off = coll::p2p_matrices(topo, false, options.copy_bytes);
  const coll::CopyMatrices on = coll::p2p_matrices(topo, true, options.copy_bytes);
  out += "Unidirectional P2P=Disabled Bandwidth Matrix (GB/s)\n" +
         sample_matrix("   D\\D", off.uni_Bps, 1e-9);
  out += "Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)\n" +
         sample_matrix("   D\\D", on.uni_Bps, 1e-9);
  if (options.p2p_read) {
    out += "Unidirectional P2P=Enabled Bandwidth (P2P Reads) Matrix (GB/s)\n" +
           sample_matrix("   D\\D", on.uni_Bps, 1e-9);
  }
  out += "Bidirectional P2P=Disabled Bandwidth Matrix (GB/s)\n" +
         sample_matrix("   D\\D", off.bidi_Bps, 1e-9);
  out += "Bidirectional P2P=Enabled Bandwidth Matrix (GB/s)\n" +
         sample_matrix("   D\\D", on.bidi_Bps, 1e-9);
  out += "P2P=Disabled Latency Matrix (us)\n" + latency_block(off);
  out += "P2P=Enabled Latency (P2P Writes) Matrix (us)\n" + latency_block(on);
  if (options.p2p_read) out += "P2P=Enabled Latency (P2P Reads) Matrix (us)\n" + latency_block(on);
  out +=
      "\nNOTE: The CUDA Samples are not meant for performance measurements. Results may vary when "
      "GPU Boost is enabled.\n";
  return out;
}

std::vector<double> bandwidth_test_sizes(const BandwidthTestOptions& options) {
  std::vector<double> sizes;
  switch (options.mode) {
    case BandwidthTestMode::quick:
      sizes.push_back(coll::kBandwidthTestBytes);
      break;
    case BandwidthTestMode::range:
      // count = 1 + (end - start) / increment, in the sample's unsigned arithmetic.
      for (double s = options.start_bytes; s <= options.end_bytes; s += options.increment_bytes)
        sizes.push_back(s);
      break;
    case BandwidthTestMode::shmoo: {
      // testBandwidthShmoo: finer steps for small sizes, up to one step past 64 MB (81 sizes).
      for (double s = 0; s <= 64e6;) {
        s += s < 20e3    ? 1e3
             : s < 50e3  ? 2e3
             : s < 100e3 ? 10e3
             : s < 1e6   ? 100e3
             : s < 16e6  ? 1e6
             : s < 32e6  ? 2e6
                         : 4e6;
        sizes.push_back(s);
      }
      break;
    }
  }
  return sizes;
}

std::vector<topo::NodeId> bandwidth_test_gpus(const topo::Topology& topo,
                                              const BandwidthTestOptions& options) {
  const auto gpus = topo.nodes_of(topo::NodeKind::gpu);
  if (!options.device) return gpus;
  return {gpus.at(static_cast<std::size_t>(*options.device))};
}

std::string format_bandwidth_test(const topo::Topology& topo, const BandwidthTestOptions& options) {
  const std::vector<topo::NodeId> used = bandwidth_test_gpus(topo, options);
  std::string out = "[CUDA Bandwidth Test] - Starting...\n";
  if (!options.device)
    out += "\n!!!!!Cumulative Bandwidth to be computed from all the devices !!!!!!\n\n";
  out += "Running on...\n\n";
  for (auto g : used)
    out += fmt::format(" Device {}: {}\n", topo.node(g).ordinal, topo.node(g).model);
  out += options.mode == BandwidthTestMode::quick   ? " Quick Mode\n\n"
         : options.mode == BandwidthTestMode::range ? " Range Mode\n\n"
                                                    : " Shmoo Mode\n\n";
  const std::vector<double> sizes = bandwidth_test_sizes(options);
  struct Kind {
    bool wanted;
    const char* title;
    const char* csv;
    double coll::HostDeviceFigures::*figure;
  };
  const Kind kinds[] = {
      {options.htod, "Host to Device", "H2D", &coll::HostDeviceFigures::h2d_Bps},
      {options.dtoh, "Device to Host", "D2H", &coll::HostDeviceFigures::d2h_Bps},
      {options.dtod, "Device to Device", "D2D", &coll::HostDeviceFigures::d2d_Bps},
  };
  const int devices = static_cast<int>(used.size());
  for (const Kind& k : kinds) {
    if (!k.wanted) continue;
    // The cumulative figure is the sum of each device's own run (the sample runs them in turn).
    std::vector<double> gbps(sizes.size(), 0);
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      for (auto g : used)
        gbps[i] += coll::bandwidth_test(topo, g, sizes[i]).*k.figure / 1e9;
    }
    if (options.mode == BandwidthTestMode::shmoo) {
      out += std::string(sizes.size() * used.size(), '.') + "\n";
    }
    const bool pinned_kind = std::string(k.csv) != "D2D";
    if (options.csv) {
      const std::string config =
          std::string(k.csv) +
          (pinned_kind ? std::string("-Pinned") + (options.write_combined ? "-WriteCombined" : "")
                       : "");
      for (std::size_t i = 0; i < sizes.size(); ++i) {
        out += fmt::format(
            "bandwidthTest-{}, Bandwidth = {:.1f} GB/s, Time = {:.5f} s, Size = {:.0f} bytes, "
            "NumDevsUsed = {}\n",
            config, gbps[i], sizes[i] / (gbps[i] * 1e9), sizes[i], devices);
      }
      continue;
    }
    out += fmt::format(" {} Bandwidth, {} Device(s)\n PINNED Memory Transfers\n", k.title, devices);
    if (options.write_combined) out += " Write-Combined Memory Writes are Enabled";
    out += "   Transfer Size (Bytes)\tBandwidth(GB/s)\n";
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      out +=
          fmt::format("   {:.0f}\t\t\t{}{:.1f}\n", sizes[i], sizes[i] < 10000 ? "\t" : "", gbps[i]);
    }
    out += "\n";
  }
  out += "Result = PASS\n";
  out +=
      "\nNOTE: The CUDA Samples are not meant for performance measurements. Results may vary when "
      "GPU Boost is enabled.\n";
  return out;
}

}  // namespace linksim::report
