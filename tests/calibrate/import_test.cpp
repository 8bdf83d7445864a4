// Importers read the real printouts in tests/data/calibrate/ (reconstructed where the source
// gave rows only; each fixture says so) and reject damaged logs with the file and line.
#include <gtest/gtest.h>

#include "calibrate/import_bandwidth_test.hpp"
#include "calibrate/import_nccl_tests.hpp"
#include "calibrate/import_nvbandwidth.hpp"
#include "calibrate/import_p2p_matrix.hpp"
#include "calibrate/text_lines.hpp"
#include "sim/core/error.hpp"
#include "tests/support/temp_files.hpp"

namespace linksim::calibrate {
namespace {

std::string data(const std::string& name) {
  return linksim::testing::source_dir() + "/tests/data/calibrate/" + name;
}

// Expects an InputError whose message contains every part.
template <class F>
void expect_input_error(F&& f, std::initializer_list<std::string> parts) {
  try {
    f();
    FAIL() << "no InputError";
  } catch (const InputError& e) {
    for (const auto& p : parts)
      EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
  }
}

TEST(ImportNcclTests, ReadsThe2080TiAllReduceSweep) {
  const auto log = import_nccl_tests_file(data("rtx2080ti-2x-all_reduce_perf.txt"));
  EXPECT_EQ(log.op, "all_reduce_perf");
  EXPECT_EQ(log.ranks, 2);             // two "#  Rank" lines
  ASSERT_EQ(log.records.size(), 14u);  // 7 sizes x (out-of-place, in-place)
  const Record& first = log.records[0];
  EXPECT_EQ(first.kind, "nccl:all_reduce_perf");
  EXPECT_EQ(first.variant, "out_of_place");
  EXPECT_EQ(first.size_bytes, 8);
  EXPECT_DOUBLE_EQ(first.time_s, 12.25e-6);  // 12.25 us
  const Record& big = log.records[12];       // 1 GiB, out-of-place
  EXPECT_EQ(big.size_bytes, 1073741824);
  EXPECT_DOUBLE_EQ(big.time_s, 268588e-6);
  EXPECT_DOUBLE_EQ(big.bandwidth_Bps, 4.0e9);
  EXPECT_DOUBLE_EQ(big.bus_bandwidth_Bps, 4.0e9);
  EXPECT_EQ(big.source_line, 22);
  // Footer: mean of every busbw printed; (0+0.08+1.63+3.75+3.99+4+4)*2/14 = 17.45/7 = 2.492857.
  EXPECT_NEAR(log.avg_bus_bandwidth_Bps, 2.4929e9, 1e5);
}

TEST(ImportNcclTests, DetectsEachBinary) {
  for (const std::string op :
       {"all_gather_perf", "broadcast_perf", "reduce_perf", "alltoall_perf"}) {
    const auto log = import_nccl_tests_file(data("rtx2080ti-2x-" + op + ".txt"));
    EXPECT_EQ(log.op, op);
  }
  const auto a100 = import_nccl_tests_file(data("a100-8x-all_reduce_perf.txt"));
  EXPECT_EQ(a100.ranks, 8);             // no Rank lines: nThread 1 x nGpus 8
  EXPECT_EQ(a100.records.size(), 48u);  // 24 sizes x 2 groups
}

TEST(ImportNcclTests, RejectsDamagedLogs) {
  const std::string good = read_text_file(data("rtx2080ti-2x-all_reduce_perf.txt"));
  // Truncated: no footer.
  const std::string truncated = good.substr(0, good.find("# Out of bounds"));
  expect_input_error([&] { import_nccl_tests(truncated, "cut.txt"); },
                     {"cut.txt", "truncated", "Avg bus bandwidth"});
  // A non-numeric time cell on line 16 (the first row).
  std::string bad = good;
  bad.replace(bad.find("12.25"), 5, "12.x5");
  expect_input_error([&] { import_nccl_tests(bad, "bad.txt"); }, {"bad.txt", "line 16", "12.x5"});
  // More ranks than the machine has GPUs.
  ImportOptions one_gpu;
  one_gpu.expected_gpu_count = 1;
  expect_input_error([&] { import_nccl_tests(good, "g.txt", one_gpu); }, {"2 GPUs", "has 1"});
  // No binary name anywhere.
  std::string anonymous = good;
  anonymous.erase(anonymous.find("$ ./build"),
                  anonymous.find('\n', anonymous.find("$ ./build")) - anonymous.find("$ ./build"));
  expect_input_error([&] { import_nccl_tests(anonymous, "log.txt"); }, {"cannot tell which"});
}

TEST(ImportP2p, Reads2080TiMatrices) {
  const auto recs = import_p2p_matrix_file(data("rtx2080ti-2x-p2p.txt"));
  // 4 bandwidth matrices x 4 cells + 2 latency matrices x 2 timers x 2 off-diagonal cells.
  ASSERT_EQ(recs.size(), 24u);
  const Record& uni01 = recs[1];  // Unidirectional P2P=Disabled, row 0, column 1
  EXPECT_EQ(uni01.kind, "p2p_uni");
  EXPECT_EQ(uni01.src_gpu, 0);
  EXPECT_EQ(uni01.dst_gpu, 1);
  EXPECT_DOUBLE_EQ(uni01.bandwidth_Bps, 5.71e9);
  EXPECT_DOUBLE_EQ(uni01.time_s, 40e6 / 5.71e9);  // one 40,000,000-byte copy
  EXPECT_EQ(uni01.p2p_enabled, false);
  const Record& en01 = recs[5];  // P2P=Enabled (writes), but the pair cannot access its peer
  EXPECT_EQ(en01.kind, "p2p_uni");
  EXPECT_EQ(en01.p2p_enabled, false);
  EXPECT_EQ(recs[0].kind, "d2d");
  EXPECT_DOUBLE_EQ(recs[0].time_s, 80e6 / 541.84e9);  // diagonal counts read + write
  const Record& bidi = recs[9];  // Bidirectional P2P=Disabled, 0 -> 1: 6.12 GB/s both ways
  EXPECT_EQ(bidi.kind, "p2p_bidi");
  EXPECT_DOUBLE_EQ(bidi.time_s, 80e6 / 6.12e9);
  const Record& lat = recs[16];  // P2P=Disabled latency, GPU timer, 0 -> 1
  EXPECT_EQ(lat.kind, "p2p_latency");
  EXPECT_EQ(lat.variant, "gpu_timer");
  EXPECT_DOUBLE_EQ(lat.time_s, 14.76e-6);
  EXPECT_EQ(lat.size_bytes, 1);
  EXPECT_EQ(recs[18].variant, "cpu_timer");
  EXPECT_DOUBLE_EQ(recs[18].time_s, 11.08e-6);
}

TEST(ImportP2p, Reads4090BidirectionalMatricesAndChecksGpuCount) {
  const auto recs = import_p2p_matrix_file(data("rtx4090-3x-p2p-bidirectional.txt"));
  ASSERT_EQ(recs.size(), 18u);       // 2 matrices x 9 cells
  const Record& on12 = recs[9 + 5];  // Enabled, row 1, column 2
  EXPECT_EQ(on12.kind, "p2p_bidi");
  EXPECT_EQ(on12.p2p_enabled, true);
  EXPECT_DOUBLE_EQ(on12.bandwidth_Bps, 41.37e9);
  ImportOptions two;
  two.expected_gpu_count = 2;
  expect_input_error([&] { import_p2p_matrix_file(data("rtx4090-3x-p2p-bidirectional.txt"), two); },
                     {"line 6", "3 GPUs", "has 2"});
}

TEST(ImportP2p, RejectsTruncatedMatrix) {
  const std::string text =
      "Unidirectional P2P=Disabled Bandwidth Matrix (GB/s)\n"
      "   D\\D     0      1\n"
      "     0 541.84   5.71\n";
  expect_input_error([&] { import_p2p_matrix(text, "p2p.txt"); }, {"p2p.txt", "1 of its 2 rows"});
  const std::string nan_cell =
      "Unidirectional P2P=Disabled Bandwidth Matrix (GB/s)\n"
      "   D\\D     0      1\n"
      "     0 541.84   abc\n"
      "     1   5.70 543.05\n";
  expect_input_error([&] { import_p2p_matrix(nan_cell, "p2p.txt"); }, {"line 3", "abc"});
}

TEST(ImportBandwidthTest, Reads2080TiQuickMode) {
  const auto recs = import_bandwidth_test_file(data("rtx2080ti-2x-bandwidthTest.txt"));
  ASSERT_EQ(recs.size(), 3u);
  EXPECT_EQ(recs[0].kind, "h2d");
  EXPECT_EQ(recs[0].dst_gpu, 0);
  EXPECT_EQ(recs[0].variant, "pinned");
  EXPECT_DOUBLE_EQ(recs[0].bandwidth_Bps, 12.2e9);
  EXPECT_DOUBLE_EQ(recs[0].time_s, 32e6 / 12.2e9);
  EXPECT_EQ(recs[1].kind, "d2h");
  EXPECT_EQ(recs[1].src_gpu, 0);
  EXPECT_EQ(recs[2].kind, "d2d");
  EXPECT_DOUBLE_EQ(recs[2].time_s, 64e6 / 518.9e9);  // read + write counted
}

TEST(ImportBandwidthTest, OldMegabytesAreMebibytesAndMixedUnitsFail) {
  // Layout of the pre-CUDA-11 sample (synthetic figures).
  const std::string old_style =
      " Host to Device Bandwidth, 1 Device(s)\n"
      " PINNED Memory Transfers\n"
      "   Transfer Size (Bytes)\tBandwidth(MB/s)\n"
      "   33554432\t\t\t12000.0\n";
  const auto recs = import_bandwidth_test(old_style, "old.txt");
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_DOUBLE_EQ(recs[0].bandwidth_Bps, 12000.0 * 1048576);  // 12000 MiB/s
  const std::string mixed = old_style +
                            " Device to Host Bandwidth, 1 Device(s)\n"
                            " PINNED Memory Transfers\n"
                            "   Transfer Size (Bytes)\tBandwidth(GB/s)\n"
                            "   32000000\t\t\t13.2\n";
  expect_input_error([&] { import_bandwidth_test(mixed, "mixed.txt"); },
                     {"mixed.txt", "line 7", "mixed units"});
  const std::string truncated =
      " Host to Device Bandwidth, 1 Device(s)\n"
      " PINNED Memory Transfers\n"
      "   Transfer Size (Bytes)\tBandwidth(GB/s)\n";
  expect_input_error([&] { import_bandwidth_test(truncated, "t.txt"); }, {"line 3", "truncated"});
}

TEST(ImportNvbandwidth, ReadsHostMatricesAndPeerMatrix) {
  const auto recs = import_nvbandwidth_file(data("a100-nvbandwidth-host.txt"));
  ASSERT_EQ(recs.size(), 2u);
  EXPECT_EQ(recs[0].kind, "h2d");
  EXPECT_EQ(recs[0].dst_gpu, 0);
  EXPECT_DOUBLE_EQ(recs[0].bandwidth_Bps, 26.28e9);
  EXPECT_DOUBLE_EQ(recs[0].time_s, 536870912.0 / 26.28e9);  // 512 MiB default buffer
  EXPECT_EQ(recs[1].kind, "d2h");
  EXPECT_EQ(recs[1].src_gpu, 0);  // "CPU(row) <- GPU(column)": the column is the source
  // A peer matrix in nvbandwidth's layout (synthetic figures): "<-" makes the column the source.
  const std::string peer =
      "Running device_to_device_memcpy_read_ce.\n"
      "memcpy CE GPU(row) <- GPU(column) bandwidth (GB/s)\n"
      "           0         1\n"
      " 0       N/A    276.07\n"
      " 1    276.19       N/A\n"
      "\n"
      "SUM device_to_device_memcpy_read_ce 552.26\n";
  const auto p = import_nvbandwidth(peer, "peer.txt");
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].kind, "p2p_uni");
  EXPECT_EQ(p[0].src_gpu, 1);
  EXPECT_EQ(p[0].dst_gpu, 0);
  EXPECT_EQ(p[0].p2p_enabled, true);
  expect_input_error([&] { import_nvbandwidth(peer.substr(0, peer.find("\nSUM")), "cut.txt"); },
                     {"cut.txt", "line 1", "no SUM line"});
  ImportOptions three;
  three.expected_gpu_count = 3;
  expect_input_error([&] { import_nvbandwidth(peer, "peer.txt", three); }, {"line 3", "2 GPUs"});
}

}  // namespace
}  // namespace linksim::calibrate
