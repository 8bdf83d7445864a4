// The printouts follow the CUDA samples' printf formats byte for byte. The expected text is
// built here with those very format strings, copied from:
//   p2pBandwidthLatencyTest.cu, cuda-samples commit c94ff366 (2025-09), main(),
//     outputBandwidthMatrix(), outputBidirectionalBandwidthMatrix(), outputLatencyMatrix();
//   bandwidthTest.cu, cuda-samples before commit 7d1730f3 (its last version), main(),
//     runTest(), printResultsReadable(), printResultsCSV().
#include "sim/report/copy_bench_table.hpp"

#include <gtest/gtest.h>

#include <cstdio>

#include "sim/topo/loader.hpp"

namespace linksim::report {
namespace {

std::string printf_string(const char* format, auto... args) {
  char buffer[512];
  std::snprintf(buffer, sizeof buffer, format, args...);
  return buffer;
}

std::string sample_matrix(const char* corner, const std::vector<std::vector<double>>& m,
                          double scale) {
  std::string s = printf_string("%s", corner);
  for (std::size_t j = 0; j < m.size(); ++j)
    s += printf_string("%6d ", static_cast<int>(j));
  s += "\n";
  for (std::size_t i = 0; i < m.size(); ++i) {
    s += printf_string("%6d ", static_cast<int>(i));
    for (double v : m[i])
      s += printf_string("%6.02f ", v * scale);
    s += "\n";
  }
  return s;
}

TEST(CopyBenchTableTest, P2pPrintoutIsTheSamplesLayout) {
  const auto t = topo::load_topology("rtx2080ti-2x");
  const auto off = coll::p2p_matrices(t, false);
  const auto on = coll::p2p_matrices(t, true);
  std::string want = printf_string("[%s]\n", "P2P (Peer-to-Peer) GPU Bandwidth Latency Test");
  for (int i = 0; i < 2; ++i) {
    want += printf_string("Device: %d, %s, pciBusID: %x, pciDeviceID: %x, pciDomainID:%x\n", i,
                          "RTX-2080-Ti", i, 0, 0);
  }
  want += printf_string("Device=%d %s Access Peer Device=%d\n", 0, "CANNOT", 1);
  want += printf_string("Device=%d %s Access Peer Device=%d\n", 1, "CANNOT", 0);
  want +=
      "\n***NOTE: In case a device doesn't have P2P access to other one, it "
      "falls back to normal memcopy procedure.\nSo you can see lesser "
      "Bandwidth (GB/s) and unstable Latency (us) in those cases.\n\n";
  want += "P2P Connectivity Matrix\n     D\\D";
  for (int j = 0; j < 2; ++j)
    want += printf_string("%6d", j);
  want += "\n";
  for (int i = 0; i < 2; ++i) {
    want += printf_string("%6d\t", i);
    for (int j = 0; j < 2; ++j)
      want += printf_string("%6d", i == j ? 1 : 0);
    want += "\n";
  }
  want += "Unidirectional P2P=Disabled Bandwidth Matrix (GB/s)\n" +
          sample_matrix("   D\\D", off.uni_Bps, 1e-9);
  want += "Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)\n" +
          sample_matrix("   D\\D", on.uni_Bps, 1e-9);
  want += "Bidirectional P2P=Disabled Bandwidth Matrix (GB/s)\n" +
          sample_matrix("   D\\D", off.bidi_Bps, 1e-9);
  want += "Bidirectional P2P=Enabled Bandwidth Matrix (GB/s)\n" +
          sample_matrix("   D\\D", on.bidi_Bps, 1e-9);
  want += "P2P=Disabled Latency Matrix (us)\n" + sample_matrix("   GPU", off.latency_s, 1e6) +
          "\n" + sample_matrix("   CPU", off.cpu_latency_s, 1e6);
  want += "P2P=Enabled Latency (P2P Writes) Matrix (us)\n" +
          sample_matrix("   GPU", on.latency_s, 1e6) + "\n" +
          sample_matrix("   CPU", on.cpu_latency_s, 1e6);
  want +=
      "\nNOTE: The CUDA Samples are not meant for performance measurements. "
      "Results may vary when GPU Boost is enabled.\n";
  EXPECT_EQ(format_p2p_test(t), want);
  // The row for GPU0 of the staged latency matrix, as the sample would print 1.30 and 14.30.
  EXPECT_NE(want.find("     0   1.30  14.30 \n"), std::string::npos);
}

TEST(CopyBenchTableTest, BandwidthTestQuickModeLayout) {
  const auto t = topo::load_topology("rtx2080ti-2x");
  const auto f = coll::bandwidth_test(t, t.nodes_of(topo::NodeKind::gpu)[0]);
  std::string want = printf_string("[%s] - Starting...\n", "CUDA Bandwidth Test");
  want += "Running on...\n\n";
  want += printf_string(" Device %d: %s\n", 0, "RTX-2080-Ti");
  want += " Quick Mode\n\n";
  const std::pair<const char*, double> kinds[] = {{"Host to Device", f.h2d_Bps},
                                                  {"Device to Host", f.d2h_Bps},
                                                  {"Device to Device", f.d2d_Bps}};
  for (const auto& [kind, bps] : kinds) {
    want += printf_string(" %s Bandwidth, %i Device(s)\n", kind, 1);
    want += printf_string(" %s Memory Transfers\n", "PINNED");
    want += "   Transfer Size (Bytes)\tBandwidth(GB/s)\n";
    want += printf_string("   %u\t\t\t%s%.1f\n\n", 32000000u, "", bps / 1e9);
  }
  want += printf_string("%s\n", "Result = PASS");
  want +=
      "\nNOTE: The CUDA Samples are not meant for performance measurements. "
      "Results may vary when GPU Boost is enabled.\n";
  EXPECT_EQ(format_bandwidth_test(t, {}), want);
}

TEST(CopyBenchTableTest, BandwidthTestCsvSumsEveryDevice) {
  const auto t = topo::load_topology("rtx2080ti-2x");
  BandwidthTestOptions o;
  o.device = std::nullopt;
  o.csv = true;
  o.dtod = false;
  o.dtoh = false;
  const auto f = coll::bandwidth_test(t, t.nodes_of(topo::NodeKind::gpu)[0]);
  // Both GPUs share one switch uplink, but the sample runs them one after the other, so the
  // cumulative figure is twice one GPU's.
  const double gbps = 2 * f.h2d_Bps / 1e9;
  const std::string row = printf_string(
      "bandwidthTest-%s, Bandwidth = %.1f GB/s, Time = %.5f s, Size = %u bytes, NumDevsUsed = "
      "%d\n",
      "H2D-Pinned", gbps, 32e6 / (gbps * 1e9), 32000000u, 2);
  const std::string out = format_bandwidth_test(t, o);
  EXPECT_NE(out.find("\n!!!!!Cumulative Bandwidth to be computed from all the devices !!!!!!\n\n"),
            std::string::npos);
  EXPECT_NE(out.find(row), std::string::npos) << out;
}

TEST(CopyBenchTableTest, ShmooSizes) {
  BandwidthTestOptions o;
  o.mode = BandwidthTestMode::shmoo;
  const auto sizes = bandwidth_test_sizes(o);
  // testBandwidthShmoo's count: 1 + 20000/1000 + 30000/2000 + 50000/10000 + 900000/100000
  //   + 15e6/1e6 + 16e6/2e6 + 32e6/4e6 = 1 + 20 + 15 + 5 + 9 + 15 + 8 + 8 = 81, from 1 KB up to
  //   one 4 MB step past 64 MB.
  ASSERT_EQ(sizes.size(), 81u);
  EXPECT_EQ(sizes.front(), 1e3);
  EXPECT_EQ(sizes[19], 20e3);
  EXPECT_EQ(sizes[20], 22e3);
  EXPECT_EQ(sizes.back(), 68e6);
  o.mode = BandwidthTestMode::range;
  o.start_bytes = 1000;
  o.end_bytes = 5000;
  o.increment_bytes = 2000;
  EXPECT_EQ(bandwidth_test_sizes(o), (std::vector<double>{1000, 3000, 5000}));
}

}  // namespace
}  // namespace linksim::report
