// Bad logs and printouts through the command line (issue 13): every log `fit` reads and every
// printout `topo import` reads, each with one line broken. Each case exits 2 with one stderr
// line naming the file and the broken line, and what was expected there; nothing on stdout, no
// output file. The fixtures are the shipped ones in tests/data/; the line numbers are theirs.
#include <gtest/gtest.h>

#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "sim/topo/shipped_topologies.hpp"
#include "tests/support/temp_files.hpp"

namespace linksim {
namespace {

using testing::read_file;
using testing::run_linksim;
using testing::shell_quote;
using testing::source_dir;
using testing::TempDir;

struct LogCase {
  std::string name;     // test name and file name
  std::string command;  // everything before the log file
  std::string fixture;  // under tests/data/
  std::string from;     // first occurrence replaced ...
  std::string to;       // ... by this
  int line;             // the line the error must name
  std::string part;     // and a part of what it says was expected
};

const std::string kNccl =
    "fit --topology rtx2080ti-2x --date 2026-01-01 --nccl-tests";  // all_reduce_perf, 2 GPUs
const std::string kP2p = "fit --topology rtx2080ti-2x --date 2026-01-01 --p2p";
const std::string kBandwidth = "fit --topology rtx2080ti-2x --date 2026-01-01 --bandwidth-test";
// The nvbandwidth fixture is a one-GPU run; {src} is the source tree.
const std::string kNvbandwidth =
    "fit --topology {src}/tests/data/bad/one-a100.json --date 2026-01-01 --nvbandwidth";
const std::string kImportA100 = "topo import";  // --gpu comes after the file
const std::string kNcclLog = "calibrate/rtx2080ti-2x-all_reduce_perf.txt";
const std::string kP2pLog = "calibrate/rtx2080ti-2x-p2p.txt";
const std::string kBandwidthLog = "calibrate/rtx2080ti-2x-bandwidthTest.txt";
const std::string kNvbandwidthLog = "calibrate/a100-nvbandwidth-host.txt";
const std::string kSmiA100 = "smi/a100-8x-nvlink-pairs.txt";
const std::string kSmi2080 = "smi/rtx2080ti-2x.txt";

// nccl-tests: line 7 is the header, 16 the 8-byte row, 17 the 1 KiB row, 18 the 64 KiB row.
// p2p: line 10 the second peer line, 20 the first matrix's column header, 21-22 its rows, 37
// the latency matrix's first row. bandwidthTest: line 8 the device, 14 the H2D row, 24 D2D.
// nvbandwidth: line 21 the host-to-device row. nvidia-smi: line 2 the header, 3 GPU0's row.
// p2p: line 8 the second "Device:" line, 18 the connectivity matrix's last row. bandwidthTest:
// line 11 the H2D section. nvbandwidth: line 16 its "Device 0:" line.
std::vector<LogCase> log_cases() {
  const std::string row0 = "GPU0     X      NV12    NODE";
  const std::string row1k =
      "        1024           256     float     sum      -1    12.10    0.08    0.08      0    "
      "12.10    0.08    0.08      0\n";
  const std::string row1k_slower =
      "        1024           256     float     sum      -1    14.10    0.07    0.07      0    "
      "14.10    0.07    0.07      0\n";
  return {
      {"nccl_time_nan", kNccl, kNcclLog, "-1    12.25", "-1      nan", 16, "time"},
      {"nccl_time_negative", kNccl, kNcclLog, "-1    12.25", "-1   -12.25", 16, "time"},
      {"nccl_algbw_word", kNccl, kNcclLog, "12.25    0.00", "12.25    abcd", 16, "algbw"},
      {"nccl_busbw_huge", kNccl, kNcclLog, "12.10    0.08    0.08", "12.10    0.08   1e308", 17,
       "busbw"},
      {"nccl_size_word", kNccl, kNcclLog, "        1024           256",
       "        10x4           256", 17, "size"},
      {"nccl_size_huge", kNccl, kNcclLog, "           8             2",
       "99999999999999999999999  2", 16, "size"},
      {"nccl_row_cut_short", kNccl, kNcclLog,
       "       65536         16384     float     sum      -1    40.10    1.63    1.63      0    "
       "40.10    1.63    1.63      0",
       "       65536         16384     float", 18, "column"},
      {"nccl_type_unknown", kNccl, kNcclLog, "16384     float", "16384     floaty", 18, "type"},
      {"nccl_count_negative", kNccl, kNcclLog, "           8             2  ",
       "           8            -2  ", 16, "count"},
      {"nccl_ngpus_zero", kNccl, kNcclLog, "nGpus 2", "nGpus 0", 7, "nGpus"},
      {"nccl_ngpus_negative", kNccl, kNcclLog, "nGpus 2", "nGpus -1", 7, "nGpus"},
      {"nccl_nthread_word", kNccl, kNcclLog, "nThread 1", "nThread x", 7, "nThread"},
      // A size measured twice, a failed validation, a busbw that is not algbw x 2(n-1)/n.
      {"nccl_size_row_twice", kNccl, kNcclLog, row1k, row1k + row1k_slower, 18,
       "a second 1024 B row for float sum root -1 (the first is at line 17); give one run per "
       "file"},
      {"nccl_wrong_out_of_place", kNccl, kNcclLog, "1.63    1.63      0    40.10",
       "1.63    1.63     17    40.10", 18,
       "17 wrong results (out-of-place #wrong): the run failed validation"},
      {"nccl_wrong_in_place", kNccl, kNcclLog, "40.10    1.63    1.63      0\n",
       "40.10    1.63    1.63      3\n", 18,
       "3 wrong results (in-place #wrong): the run failed validation"},
      {"nccl_busbw_not_algbw_times_factor", kNccl, kNcclLog, "1.63    1.63      0    40.10",
       "1.63  999.00      0    40.10", 18,
       "out-of-place busbw 999.00 GB/s is not algbw 1.63 GB/s x 1 (all_reduce_perf's bus factor "
       "for 2 ranks) = 1.63 GB/s"},
      {"p2p_value_word", kP2p, kP2pLog, "     0 541.84   5.71 ", "     0 541.84   abcd ", 21, ""},
      {"p2p_value_huge", kP2p, kP2pLog, "     0 541.84   5.71 ", "     0 541.84   1e308 ", 21,
       "above"},
      {"p2p_value_negative", kP2p, kP2pLog, "     0 541.84   5.71 ", "     0 541.84  -5.71 ", 21,
       ""},
      {"p2p_row_cut_short", kP2p, kP2pLog, "     0 541.84   5.71 ", "     0 541.84 ", 21, ""},
      {"p2p_row_label_beyond", kP2p, kP2pLog, "     1   5.70 543.05", "     7   5.70 543.05", 22,
       ""},
      {"p2p_header_index_huge", kP2p, kP2pLog, "   D\\D     0      1 \n     0 541.84",
       "   D\\D     0      99999999999 \n     0 541.84", 20, ""},
      {"p2p_row_beyond_machine", kP2p, kP2pLog, "     1   5.70 543.05 \n",
       "     1   5.70 543.05 \n     2   9.70 543.05 \n", 23,
       "row label 2 is not one of the matrix's columns (0 1)"},
      {"p2p_row_twice", kP2p, kP2pLog, "     1   5.70 543.05 \n",
       "     1   5.70 543.05 \n     1   9.70 543.05 \n", 23,
       "row 1 appears twice (first at line 22)"},
      {"p2p_connectivity_row_beyond_machine", kP2p, kP2pLog, "     1\t     0     1\n",
       "     1\t     0     1\n     2\t     0     1\n", 19,
       "row label 2 is not one of the matrix's columns (0 1)"},
      {"p2p_device_line_beyond", kP2p, kP2pLog, "Device: 1, NVIDIA", "Device: 99, NVIDIA", 8,
       "device 99 is beyond the topology's 2 GPUs"},
      {"p2p_latency_negative", kP2p, kP2pLog, "1.33  14.76", "1.33 -14.76", 37, ""},
      {"p2p_peer_device_beyond", kP2p, kP2pLog, "Device=1 CANNOT Access Peer Device=0",
       "Device=5 CANNOT Access Peer Device=0", 10, "device 5"},
      {"bandwidth_value_word", kBandwidth, kBandwidthLog, "\t\t\t12.2", "\t\t\tabcd", 14, ""},
      {"bandwidth_value_negative", kBandwidth, kBandwidthLog, "\t\t\t12.2", "\t\t\t-12.2", 14, ""},
      {"bandwidth_size_negative", kBandwidth, kBandwidthLog, "   32000000\t\t\t12.2",
       "   -5\t\t\t12.2", 14, ""},
      {"bandwidth_size_zero", kBandwidth, kBandwidthLog, "   32000000\t\t\t12.2", "   0\t\t\t12.2",
       14, ""},
      {"bandwidth_d2d_huge", kBandwidth, kBandwidthLog, "\t\t\t518.9", "\t\t\t1e308", 24, "above"},
      {"bandwidth_device_beyond", kBandwidth, kBandwidthLog, " Device 0: NVIDIA",
       " Device 9: NVIDIA", 8, "9"},
      {"bandwidth_device_count_beyond", kBandwidth, kBandwidthLog, "Bandwidth, 1 Device(s)",
       "Bandwidth, 9 Device(s)", 11, "the section measured 9 devices but the topology has 2 GPUs"},
      {"bandwidth_device_count_zero", kBandwidth, kBandwidthLog, "Bandwidth, 1 Device(s)",
       "Bandwidth, 0 Device(s)", 11, "device count: expected at least 1, found 0"},
      {"nvbandwidth_value_word", kNvbandwidth, kNvbandwidthLog, " 0     26.28", " 0     abcde", 21,
       ""},
      {"nvbandwidth_value_negative", kNvbandwidth, kNvbandwidthLog, " 0     26.28", " 0    -26.28",
       21, ""},
      {"nvbandwidth_value_huge", kNvbandwidth, kNvbandwidthLog, " 0     26.28", " 0     1e308", 21,
       "above"},
      {"nvbandwidth_value_zero", kNvbandwidth, kNvbandwidthLog, " 0     26.28", " 0      0.00", 21,
       "bandwidth (GB/s): expected a positive number, found \"0.00\" (nvbandwidth prints N/A "
       "for a pair it does not measure)"},
      {"nvbandwidth_testcase_twice", kNvbandwidth, kNvbandwidthLog,
       "Running device_to_host_memcpy_ce.", "Running host_to_device_memcpy_ce.", 25,
       "testcase \"host_to_device_memcpy_ce\" runs a second time (first at line 18); give one "
       "run per file"},
      {"nvbandwidth_device_line_beyond", kNvbandwidth, kNvbandwidthLog, "Device 0: NVIDIA",
       "Device 99: NVIDIA", 16, "device 99 is beyond the topology's 1 GPUs"},
      {"smi_cell_unknown", kImportA100, kSmiA100, row0, "GPU0     X      QQQ     NODE", 3, "QQQ"},
      {"smi_row_cut_short", kImportA100, kSmiA100,
       "GPU0     X      NV12    NODE    NODE    SYS     SYS     SYS     SYS     0-31,64-95      0",
       "GPU0     X      NV12    NODE", 3, "truncated"},
      {"smi_cpu_affinity_word", kImportA100, kSmiA100, "0-31,64-95      0\n", "zz-31      0\n", 3,
       "zz-31"},
      {"smi_cpu_affinity_backwards", kImportA100, kSmiA100, "0-31,64-95      0\n",
       "99999-1      0\n", 3,
       "GPU0 CPU Affinity \"99999-1\": the range 99999-1 runs backwards; expected low-high such "
       "as 0-31"},
      {"smi_cpu_affinity_beyond", kImportA100, kSmiA100, "0-31,64-95      0\n",
       "0-31,64-99999      0\n", 3,
       "GPU0 CPU Affinity \"0-31,64-99999\": CPU 99999 is beyond the 8192 CPUs Linux numbers"},
      {"smi_numa_huge", kImportA100, kSmiA100, "0-31,64-95      0\n",
       "0-31,64-95      99999999999\n", 3, "99999999999"},
      {"smi_row_label_word", kImportA100, kSmiA100, "GPU1    NV12     X", "GPUX    NV12     X", 4,
       "GPUX"},
      {"smi_header_word", kImportA100, kSmiA100, "GPU1    GPU2", "GPUQ    GPU2", 2, "GPUQ"},
      {"smi_pix_misspelt", kImportA100, kSmi2080, "GPU0     X      PIX", "GPU0     X      PXQ", 3,
       "PXQ"},
  };
}

// gtest prints a failing case by its name.
void PrintTo(const LogCase& c, std::ostream* os) {
  *os << c.name;
}

class BadLog : public ::testing::TestWithParam<LogCase> {};

TEST_P(BadLog, ExitsTwoWithOneLineNamingFileAndLine) {
  const LogCase& c = GetParam();
  TempDir dir;
  std::string text = read_file(source_dir() + "/tests/data/" + c.fixture);
  const auto at = text.find(c.from);
  ASSERT_NE(at, std::string::npos) << c.from;
  text.replace(at, c.from.size(), c.to);
  const std::string log = dir.write(c.name + ".txt", text);
  const std::string out = dir.path() + "/out.json";
  std::string args = c.command + " " + shell_quote(log);
  if (const auto src = args.find("{src}"); src != std::string::npos) {
    args.replace(src, 5, shell_quote(source_dir()));
  }
  if (c.command == kImportA100) {
    args += c.fixture == kSmi2080 ? " --gpu RTX-2080-Ti" : " --gpu A100-SXM4-80GB";
  }
  args += " -o " + shell_quote(out);
  const auto r = run_linksim(args);
  EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
  EXPECT_EQ(r.out, "");
  const std::string where = "linksim: error: " + log + ": at line " + std::to_string(c.line) + ": ";
  EXPECT_EQ(r.err.rfind(where, 0), 0u) << "expected " << where << "\n" << r.err;
  EXPECT_NE(r.err.find(c.part, where.size()), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "not one line:\n" << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
}

INSTANTIATE_TEST_SUITE_P(Logs, BadLog, ::testing::ValuesIn(log_cases()),
                         [](const ::testing::TestParamInfo<LogCase>& param) {
                           return param.param.name;
                         });

// An nccl-tests -J file of a 2-rank all_gather_perf run (src/util.cu, version 3), one size.
std::string nccl_tests_json(const std::string& ngpus) {
  return R"({"version":3,"args":["./build/all_gather_perf","-b","1K","-e","1K","-g","2"],)"
         R"("nccl_version":22704,"config":{"nthreads":1,"ngpus":)" +
         ngpus +
         R"(,"iterations":20,"devices":[{"rank":0},{"rank":1}]},)"
         R"("results":[{"size":1024,"count":128,"type":"float","redop":"none","root":"    -1",)"
         R"("out_of_place":{"time":10.11,"alg_bw":0.1,"bus_bw":0.05,"nwrong":0},)"
         R"("in_place":{"time":9.9,"alg_bw":0.1,"bus_bw":0.05,"nwrong":0}}],)"
         R"("average_bus_bandwidth":{"bandwidth":0.05}})";
}

TEST(BadLogWhole, ANcclTestsJsonGpuCountIsBlamedOnTheLog) {
  // "ngpus": 10^9 used to reach the fit, which on dgx-a100 then blamed the shipped machine:
  // "topologies/dgx-a100.json: at /host_launch/range: expected [low, high] with low <=
  // host_launch.per_gpu <= high".
  TempDir dir;
  const std::string log = dir.write("run.json", nccl_tests_json("1000000000"));
  const std::string out = dir.path() + "/out.json";
  const auto r = run_linksim("fit --topology rtx2080ti-2x --date 2026-01-01 --nccl-tests " +
                             shell_quote(log) + " -o " + shell_quote(out));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "linksim: error: " + log +
                       ": at /config/ngpus: 1000000000 is above the 1048576 linksim accepts\n");
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(BadLogWhole, FitOnAClusterNamesItsHostMachine) {
  // A cluster file used to be read as a machine: "at /: missing required field \"links\"".
  TempDir dir;
  const std::string log = dir.write("run.json", nccl_tests_json("2"));
  const std::string out = dir.path() + "/out.json";
  const auto r = run_linksim("fit --topology aws-p4d-x2 --nccl-tests " + shell_quote(log) + " -o " +
                             shell_quote(out));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "linksim: error: " + topo::resolve_topology_path("aws-p4d-x2") +
                       ": at /cluster: fit calibrates one machine, not a cluster; give the "
                       "cluster's host machine, --topology aws-p4d.24xlarge, and logs measured "
                       "on one of its nodes\n");
  EXPECT_FALSE(std::filesystem::exists(out));
}

}  // namespace
}  // namespace linksim
