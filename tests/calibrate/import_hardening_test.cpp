// Importers refuse damaged or impossible logs with the file and line, instead of crashing or
// fitting garbage (issue 13, items 5, 9 and 10). Each case edits one line of a real fixture.
#include <gtest/gtest.h>

#include <string>

#include "calibrate/import_bandwidth_test.hpp"
#include "calibrate/import_nccl_tests.hpp"
#include "calibrate/import_nvbandwidth.hpp"
#include "calibrate/import_p2p_matrix.hpp"
#include "calibrate/text_lines.hpp"
#include "sim/core/error.hpp"
#include "tests/support/temp_files.hpp"
#include "tests/support/thrown_message.hpp"

namespace linksim::calibrate {
namespace {

std::string fixture(const std::string& name) {
  return read_text_file(linksim::testing::source_dir() + "/tests/data/calibrate/" + name);
}

// `text` with the first occurrence of `from` replaced by `to`; fails the test if absent.
std::string edit(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

template <class F>
std::string error_of(F&& f) {
  return testing::thrown_message<InputError>(f);
}

ImportOptions gpus(int n) {
  ImportOptions o;
  o.expected_gpu_count = n;
  return o;
}

// --- nccl-tests -----------------------------------------------------------------------------

const std::string kRow8 =
    "           8             2     float     sum      -1    12.25    0.00    0.00      0    "
    "12.25    0.00    0.00      0";

std::string nccl_error(const std::string& text, const ImportOptions& o = {}) {
  return error_of([&] { import_nccl_tests(text, "ar.txt", o); });
}

TEST(ImportNcclTestsHardening, SecondColumnHeaderIsRefusedNotAHeapOverflow) {
  const std::string good = fixture("rtx2080ti-2x-all_reduce_perf.txt");
  // A second "size count" header without time/algbw/busbw columns used to keep the first
  // header's column indices (up to 12) for rows of 3 cells.
  const std::string twice = edit(good, "# Out of bounds", "#  size count type\n  8 2 float\n#");
  EXPECT_EQ(nccl_error(twice),
            "ar.txt: at line 23: a second column header (the first is at line 14); give one "
            "run per file");
}

TEST(ImportNcclTestsHardening, RowsWithImpossibleFiguresAreRefused) {
  const std::string good = fixture("rtx2080ti-2x-all_reduce_perf.txt");
  // Line 16 is the 8-byte row.
  EXPECT_EQ(nccl_error(edit(good, "-1    12.25", "-1    -12.25")),
            "ar.txt: at line 16: time (us): expected a positive number, found \"-12.25\"");
  EXPECT_EQ(nccl_error(edit(good, "-1    12.25", "-1    0.00")),
            "ar.txt: at line 16: time (us): expected a positive number, found \"0.00\"");
  EXPECT_EQ(nccl_error(edit(good, "           8   ", "          -8   ")),
            "ar.txt: at line 16: size (B): expected a non-negative integer, found \"-8\"");
  // 1e308 GB/s overflows to infinity in B/s; the bound is 1 PB/s = 1e6 GB/s.
  EXPECT_EQ(nccl_error(edit(good, "12.25    0.00", "12.25    1e308")),
            "ar.txt: at line 16: algbw (GB/s): 1e308 is above the 1e+06 linksim accepts");
  EXPECT_EQ(nccl_error(edit(good, "0.00    0.00      0    12.25", "0.00   -0.01      0    12.25")),
            "ar.txt: at line 16: busbw (GB/s): expected a number >= 0, found \"-0.01\"");
}

TEST(ImportNcclTestsHardening, TypeRedopAndCountMustAgree) {
  const std::string good = fixture("rtx2080ti-2x-all_reduce_perf.txt");
  EXPECT_EQ(nccl_error(edit(good, kRow8, edit(kRow8, "float", "quad"))),
            "ar.txt: at line 16: unknown data type \"quad\"");
  EXPECT_EQ(nccl_error(edit(good, kRow8, edit(kRow8, "  sum", "  xor"))),
            "ar.txt: at line 16: unknown reduction \"xor\"; expected sum, prod, max, min, avg, "
            "mulsum or none");
  // all_reduce: size = count x 4 bytes (float), 2 x 4 = 8; 3 x 4 = 12 != 8.
  EXPECT_EQ(nccl_error(edit(good, kRow8, edit(kRow8, "   2  ", "   3  "))),
            "ar.txt: at line 16: size 8 B is not count 3 x 4 B (float)");
  // all_gather on 2 ranks: size = count x 4 B x 2 ranks, 128 x 8 = 1024; 256 x 8 = 2048.
  const std::string ag = fixture("rtx2080ti-2x-all_gather_perf.txt");
  EXPECT_EQ(error_of([&] {
              import_nccl_tests(edit(ag, "  1024           128", "  1024           256"), "ag.txt");
            }),
            "ag.txt: at line 16: size 1024 B is not count 256 x 4 B (float) x 2 ranks");
}

TEST(ImportNcclTestsHardening, HeaderCountsAreCheckedAgainstTheMachine) {
  const std::string good = fixture("rtx2080ti-2x-all_reduce_perf.txt");
  // The header is line 7.
  EXPECT_EQ(nccl_error(edit(good, "nGpus 2", "nGpus 0")),
            "ar.txt: at line 7: nGpus: expected at least 1, found 0");
  EXPECT_EQ(nccl_error(edit(good, "nThread 1", "nThread 0")),
            "ar.txt: at line 7: nThread: expected at least 1, found 0");
  // nGpus 8 on a 2-GPU machine, even though only two "#  Rank" lines follow.
  EXPECT_EQ(nccl_error(edit(good, "nGpus 2", "nGpus 8"), gpus(2)),
            "ar.txt: at line 7: one process drives 1 x 8 = 8 GPUs but the topology has 2");
  // 10^9 GPUs is named in the log, not in the machine file.
  EXPECT_EQ(nccl_error(edit(good, "nGpus 2", "nGpus 1000000000")),
            "ar.txt: at line 7: nGpus: 1000000000 is above the 1048576 linksim accepts");
  // Two Rank lines cannot come from one thread driving 4 GPUs.
  EXPECT_EQ(nccl_error(edit(good, "nGpus 2", "nGpus 4")),
            "ar.txt: at line 7: 2 \"#  Rank\" lines are not a whole number of processes of 1 "
            "x 4 GPUs");
}

TEST(ImportNcclTestsHardening, FailedValidationAndRepeatedSizesAreRefused) {
  const std::string good = fixture("rtx2080ti-2x-all_reduce_perf.txt");
  EXPECT_EQ(
      nccl_error(edit(good, kRow8, edit(kRow8, "0.00      0    12.25", "0.00     17    12.25"))),
      "ar.txt: at line 16: 17 wrong results (out-of-place #wrong): the run failed "
      "validation");
  // -c 0 prints N/A: nothing was checked, nothing failed.
  EXPECT_EQ(
      nccl_error(edit(good, kRow8, edit(kRow8, "0.00      0    12.25", "0.00    N/A    12.25"))),
      "accepted");
  // The same size twice; the same size of another type (-d all) is another measurement.
  EXPECT_EQ(nccl_error(edit(good, kRow8 + "\n", kRow8 + "\n" + kRow8 + "\n")),
            "ar.txt: at line 17: a second 8 B row for float sum root -1 (the first is at line 16); "
            "give one run per file");
  EXPECT_EQ(
      nccl_error(edit(
          good, kRow8 + "\n",
          kRow8 + "\n" + edit(edit(kRow8, "2     float", "1    double"), "12.25", "12.31") + "\n")),
      "accepted");
}

TEST(ImportNcclTestsHardening, EachRankIsListedOnce) {
  const std::string good = fixture("rtx2080ti-2x-all_reduce_perf.txt");
  // Lines 10 and 11 list ranks 0 and 1. Two "Rank  0" lines used to be counted as two ranks.
  EXPECT_EQ(nccl_error(edit(good, "#  Rank  1 Group", "#  Rank  0 Group")),
            "ar.txt: at line 11: a second device line for rank 0 (the first is at line 10); give "
            "one run per file");
  EXPECT_EQ(nccl_error(edit(good, "#  Rank  1 Group", "#  Rank  x Group")),
            "ar.txt: at line 11: rank: expected a non-negative integer, found \"x\"");
}

TEST(ImportNcclTestsHardening, RowsAfterTheFooterAreRefused) {
  const std::string good = fixture("rtx2080ti-2x-all_reduce_perf.txt");
  // The footer is line 24 and the file ends at line 25: a row after it used to be fitted as
  // part of the run's table.
  EXPECT_EQ(nccl_error(good + kRow8 + "\n"),
            "ar.txt: at line 26: a table row after the \"# Avg bus bandwidth\" footer at line 24, "
            "which ends the table; give one run per file");
  // What a run prints after its table (NCCL's teardown, the closing comment) is no row.
  EXPECT_EQ(
      nccl_error(good + "gpu01:4242:4242 [0] NCCL INFO comm 0x5 rank 0 nranks 2 cudaDev 0 busId "
                        "3b000 - Destroy COMPLETE\n"
                        "# Collective test concluded: all_reduce_perf\n"),
      "accepted");
}

TEST(ImportNcclTestsHardening, BusbwMustBeAlgbwTimesTheBinarysBusFactor) {
  const std::string ar = fixture("rtx2080ti-2x-all_reduce_perf.txt");
  // all_reduce on 2 ranks: 2(n-1)/n = 1. Line 18 prints algbw 1.63; 2% of it is 0.0326.
  const std::string oop = "1.63    1.63      0    40.10";
  EXPECT_EQ(nccl_error(edit(ar, oop, "1.63    1.66      0    40.10")), "accepted");
  EXPECT_EQ(nccl_error(edit(ar, oop, "1.63    1.67      0    40.10")),
            "ar.txt: at line 18: out-of-place busbw 1.67 GB/s is not algbw 1.63 GB/s x 1 "
            "(all_reduce_perf's bus factor for 2 ranks) = 1.63 GB/s");
  // Small figures: both printed to 0.01, so 0.005 + 1 x 0.005 (+ 0.001) of rounding; line 17.
  EXPECT_EQ(nccl_error(edit(ar, "0.08    0.08      0    12.10", "0.08    0.09      0    12.10")),
            "accepted");
  EXPECT_EQ(nccl_error(edit(ar, "0.08    0.08      0    12.10", "0.08    0.10      0    12.10")),
            "ar.txt: at line 17: out-of-place busbw 0.10 GB/s is not algbw 0.08 GB/s x 1 "
            "(all_reduce_perf's bus factor for 2 ranks) = 0.08 GB/s");
  // The in-place group is checked too (line 18 ends with it).
  EXPECT_EQ(
      nccl_error(edit(ar, "40.10    1.63    1.63      0\n", "40.10    1.63    3.26      0\n")),
      "ar.txt: at line 18: in-place busbw 3.26 GB/s is not algbw 1.63 GB/s x 1 "
      "(all_reduce_perf's bus factor for 2 ranks) = 1.63 GB/s");
  // all_gather on 2 ranks: (n-1)/n = 0.5 (line 18: 1 MiB, algbw 5.79, busbw 2.89).
  const std::string ag = fixture("rtx2080ti-2x-all_gather_perf.txt");
  EXPECT_EQ(error_of([&] {
              import_nccl_tests(
                  edit(ag, "5.79    2.89      0   181.10", "5.79    5.79      0   181.10"),
                  "ag.txt");
            }),
            "ag.txt: at line 18: out-of-place busbw 5.79 GB/s is not algbw 5.79 GB/s x 0.5 "
            "(all_gather_perf's bus factor for 2 ranks) = 2.90 GB/s");
  // all_reduce on 8 ranks: 2 x 7 / 8 = 1.75 (a 1 MiB row: algbw 20.70, busbw 36.22).
  const std::string a100 = fixture("a100-8x-all_reduce_perf.txt");
  EXPECT_EQ(error_of([&] {
              import_nccl_tests(edit(a100, "20.70   36.22", "20.70   20.70"), "a100.txt");
            }),
            "a100.txt: at line 22: out-of-place busbw 20.70 GB/s is not algbw 20.70 GB/s x 1.75 "
            "(all_reduce_perf's bus factor for 8 ranks) = 36.23 GB/s");
}

// linksim's own printouts (relabelled as measurements: a real GPU is never on PCI bus 0) print
// busbw as nccl-tests does, for 2 to 256 ranks and several binaries: every row agrees.
TEST(ImportNcclTestsHardening, SimulatedPrintoutsAgreeWithTheBusFactorCheck) {
  for (const std::string name :
       {"nccl-tests-rtx2080ti-2x", "nccl-tests-aws-p4de-x2", "nccl-tests-aws-p4d-x2-alltoall",
        "nccl-tests-dgx-h100-superpod-su-collnet"}) {
    std::string text =
        read_text_file(linksim::testing::source_dir() + "/tests/data/golden/" + name + ".txt");
    for (auto at = text.find("[0000:00:00]"); at != std::string::npos;
         at = text.find("[0000:00:00]", at)) {
      text.replace(at, 12, "[0000:07:00]");
    }
    NcclTestsLog log;
    EXPECT_EQ(error_of([&] { log = import_nccl_tests(text, name + ".txt"); }), "accepted");
    EXPECT_GE(log.ranks, 2) << name;
    EXPECT_FALSE(log.records.empty()) << name;
  }
}

// --- p2pBandwidthLatencyTest ----------------------------------------------------------------

const std::string kP2p =
    "Unidirectional P2P=Disabled Bandwidth Matrix (GB/s)\n"
    "   D\\D     0      1\n"
    "     0 541.84   5.71\n"
    "     1   5.70 543.05\n";

std::string p2p_error(const std::string& text, const ImportOptions& o = {}) {
  return error_of([&] { import_p2p_matrix(text, "p2p.txt", o); });
}

TEST(ImportP2pHardening, BandwidthsAndLabelsAreBounded) {
  // 1e308 GB/s is infinite in B/s.
  EXPECT_EQ(p2p_error(edit(kP2p, "5.71", "1e308")),
            "p2p.txt: at line 3: matrix cell: 1e308 is above the 1e+06 linksim accepts");
  // A row label that is not one of the column labels.
  EXPECT_EQ(p2p_error(edit(kP2p, "     1   5.70", "     7   5.70")),
            "p2p.txt: at line 4: row label 7 is not one of the matrix's columns (0 1)");
  EXPECT_EQ(p2p_error(edit(kP2p, "     1   5.70", "     0   5.70")),
            "p2p.txt: at line 4: row 0 appears twice (first at line 3)");
  // 99999999999 does not fit an int: named with its line, not wrapped.
  EXPECT_EQ(p2p_error(edit(kP2p, "     0      1", "     0      99999999999")),
            "p2p.txt: at line 2: matrix column label: 99999999999 is above the 65535 linksim "
            "accepts");
  // A row after the last one: a GPU the machine lacks, or a second row of GPU 1.
  EXPECT_EQ(p2p_error(kP2p + "     2   9.70 543.05\n", gpus(2)),
            "p2p.txt: at line 5: row label 2 is not one of the matrix's columns (0 1)");
  EXPECT_EQ(p2p_error(kP2p + "     1   9.70 543.05\n"),
            "p2p.txt: at line 5: row 1 appears twice (first at line 4)");
  EXPECT_EQ(p2p_error(kP2p + "\n     1   9.70 543.05\n"), "accepted");
  // Labels beyond the machine's GPUs.
  EXPECT_EQ(p2p_error(edit(edit(kP2p, "     0      1", "     0      5"), "     1   5.70",
                           "     5   5.70"),
                      gpus(2)),
            "p2p.txt: at line 2: GPU 5 is beyond the topology's 2 GPUs");
}

TEST(ImportP2pHardening, PeerAccessLinesNameDevicesOfTheMatrix) {
  EXPECT_EQ(p2p_error("Device=0 CANNOT Access Peer Device=99\n" + kP2p),
            "p2p.txt: at line 1: device 99 is not one of the matrices' GPUs (0 1)");
  EXPECT_EQ(p2p_error("Device=0 CANNOT Access Peer Device=1\n" + kP2p, gpus(2)), "accepted");
  // The "Device: N, <name>, pciBusID: ..." lines list the GPUs the test saw.
  const std::string device99 = "Device: 99, NVIDIA GeForce RTX 2080 Ti, pciBusID: 3e\n";
  EXPECT_EQ(p2p_error(device99 + kP2p, gpus(2)),
            "p2p.txt: at line 1: device 99 is beyond the topology's 2 GPUs");
  EXPECT_EQ(p2p_error(device99 + kP2p),
            "p2p.txt: at line 1: device 99 is not one of the matrices' GPUs (0 1)");
  EXPECT_EQ(p2p_error("Device: 1, NVIDIA GeForce RTX 2080 Ti, pciBusID: 3e\n" + kP2p, gpus(2)),
            "accepted");
  EXPECT_EQ(p2p_error("Device=0 MAYBE Access Peer Device=1\n" + kP2p),
            "p2p.txt: at line 1: expected \"CAN\" or \"CANNOT\", found \"MAYBE\"");
}

// --- bandwidthTest --------------------------------------------------------------------------

TEST(ImportBandwidthTestHardening, BandwidthIsBounded) {
  const std::string good = fixture("rtx2080ti-2x-bandwidthTest.txt");
  const auto first_row = good.find("32000000");
  ASSERT_NE(first_row, std::string::npos);
  const auto eol = good.find('\n', first_row);
  std::string bad = good;
  bad.replace(first_row, eol - first_row, "32000000\t\t\t1e308");
  // The first table row is line 14; 1 PB/s = 1e6 GB/s.
  EXPECT_EQ(error_of([&] { import_bandwidth_test(bad, "bw.txt"); }),
            "bw.txt: at line 14: bandwidth: 1e308 is above the 1e+06 linksim accepts");
}

TEST(ImportBandwidthTestHardening, SectionDeviceCountIsWithinTheMachine) {
  const std::string good = fixture("rtx2080ti-2x-bandwidthTest.txt");
  // Line 11 is the "Host to Device Bandwidth, 1 Device(s)" section.
  EXPECT_EQ(error_of([&] {
              import_bandwidth_test(edit(good, "1 Device(s)", "9 Device(s)"), "bw.txt", gpus(2));
            }),
            "bw.txt: at line 11: the section measured 9 devices but the topology has 2 GPUs");
  EXPECT_EQ(error_of([&] {
              import_bandwidth_test(edit(good, "1 Device(s)", "2 Device(s)"), "bw.txt", gpus(2));
            }),
            "accepted");
}

// --- nvbandwidth ----------------------------------------------------------------------------

const std::string kPeer =
    "Running device_to_device_memcpy_read_ce.\n"
    "memcpy CE GPU(row) <- GPU(column) bandwidth (GB/s)\n"
    "           0         1\n"
    " 0       N/A    276.07\n"
    " 1    276.19       N/A\n"
    "\n"
    "SUM device_to_device_memcpy_read_ce 552.26\n";

std::string nvb_error(const std::string& text, const ImportOptions& o = {}) {
  return error_of([&] { import_nvbandwidth(text, "nvb.txt", o); });
}

TEST(ImportNvbandwidthHardening, NegativeHugeAndStrayRowsAreRefused) {
  EXPECT_EQ(nvb_error(edit(kPeer, "276.07", "-276.07")),
            "nvb.txt: at line 4: bandwidth (GB/s): expected a number >= 0, found \"-276.07\"");
  EXPECT_EQ(nvb_error(edit(kPeer, "276.07", "1e308")),
            "nvb.txt: at line 4: bandwidth (GB/s): 1e308 is above the 1e+06 linksim accepts");
  // nvbandwidth prints N/A for a pair it does not measure: 0.00 is no measurement.
  EXPECT_EQ(nvb_error(edit(kPeer, "276.07", "0.00")),
            "nvb.txt: at line 4: bandwidth (GB/s): expected a positive number, found \"0.00\" "
            "(nvbandwidth prints N/A for a pair it does not measure)");
  // "Device N:" lines list the GPUs the tool saw.
  EXPECT_EQ(nvb_error("Device 0: A100-SXM4-80GB (00000000:07:00)\n"
                      "Device 99: A100-SXM4-80GB (00000000:0f:00)\n\n" +
                          kPeer,
                      gpus(2)),
            "nvb.txt: at line 2: device 99 is beyond the topology's 2 GPUs");
  // Row 9 of a 2-GPU matrix was read as a GPU of its own.
  EXPECT_EQ(nvb_error(edit(kPeer, " 1    276.19", " 9    276.19")),
            "nvb.txt: at line 5: row label 9 is not one of the matrix's columns (0 1)");
  EXPECT_EQ(nvb_error(edit(edit(kPeer, "           0         1", "           0         4"),
                           " 1    276.19", " 4    276.19"),
                      gpus(2)),
            "nvb.txt: at line 3: GPU 4 is beyond the topology's 2 GPUs");
}

TEST(ImportNvbandwidthHardening, AHostMatrixHasOneRowLabelledZero) {
  // nvbandwidth's host testcases print a 1 x GPUs matrix whose one row, 0, is the host. A row
  // labelled 99 used to be read as the host's.
  const std::string host =
      "Running host_to_device_memcpy_ce.\n"
      "memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)\n"
      "           0         1\n"
      " 0     26.28     26.30\n"
      "\n"
      "SUM host_to_device_memcpy_ce 52.58\n";
  EXPECT_EQ(nvb_error(host, gpus(2)), "accepted");
  EXPECT_EQ(nvb_error(edit(host, " 0     26.28", " 99    26.28"), gpus(2)),
            "nvb.txt: at line 4: row label 99 is not the host's row; a CPU(row) matrix has one "
            "row, labelled 0");
  EXPECT_EQ(nvb_error(edit(host, " 0     26.28", " 1     26.28")),
            "nvb.txt: at line 4: row label 1 is not the host's row; a CPU(row) matrix has one "
            "row, labelled 0");
}

}  // namespace
}  // namespace linksim::calibrate
