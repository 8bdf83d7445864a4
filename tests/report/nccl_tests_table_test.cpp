// The printout against nccl-tests 2.19.6's own printf formats, copied here from its source
// (NVIDIA/nccl-tests src/util.cu and src/common.cu @a0b82b2260cf5152b9f8c061bbf7eaf0ba096432)
// and run through the C library's snprintf: an independent rendering of the same layout.
#include "sim/report/nccl_tests_table.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <sstream>

#include "sim/coll/communicator.hpp"
#include "sim/core/json_view.hpp"
#include "sim/topo/loader.hpp"

namespace linksim::report {
namespace {

template <typename... A>
std::string c_printf(const char* format, A... args) {
  char buffer[4096];
  std::snprintf(buffer, sizeof buffer, format, args...);
  return buffer;
}

NcclTestsRun two_gpu_run() {
  NcclTestsRun r;
  r.program = "all_reduce_perf";
  r.argv = {"all_reduce_perf", "-b", "8", "-e", "1M", "-f", "1024", "-g", "2"};
  r.nccl_version = 23007;
  r.gpus_per_thread = 2;
  r.min_bytes = 8;
  r.max_bytes = 1048576;
  r.step_factor = 1024;
  r.ranks = {{0, 0, "box", 0, "0000:00:00", "GPU-A"}, {1, 0, "box", 1, "0000:01:00", "GPU-A"}};
  return r;
}

coll::SweepRow row(double size, long long count, double time_s, double algbw_GBps,
                   double busbw_GBps) {
  coll::SweepRow w;
  w.size_bytes = size;
  w.count = count;
  w.type = "float";
  w.redop = "sum";
  w.root = -1;
  w.outcome.time_s = time_s;
  w.outcome.algbw_Bps = algbw_GBps * 1e9;
  w.outcome.busbw_Bps = busbw_GBps * 1e9;
  return w;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    out.push_back(line);
  return out;
}

// writeBenchmarkLinePreamble + writeBenchmarkLineBody x 2, with -c 1 (0 wrong elements).
std::string checked_row(long size, long count, const char* t, const char* a, const char* b) {
  char root[100];
  std::snprintf(root, sizeof root, "%6i", -1);
  std::string line = c_printf("%12li  %12li  %8s  %6s  %6s", size, count, "float", "sum", root);
  for (int i = 0; i < 2; ++i)
    line += c_printf("  %7s  %6s  %6s  %6g", t, a, b, 0.0);
  return line;
}

TEST(NcclTestsTableTest, EveryLineIsTheBinarysOwnFormat) {
  const NcclTestsRun run = two_gpu_run();
  // 8 B in 12.3456 us; 1 MiB in 123.456 us at 8.49 / 8.49 GB/s; then 12345.6 us (too wide for
  // %7.2f, so %7.1f) at 123.456 GB/s (%6.2f is 6 wide: 123.46).
  const std::vector<coll::SweepRow> rows{row(8, 2, 12.3456e-6, 0.00065, 0.00065),
                                         row(1048576, 262144, 123.456e-6, 8.49, 8.49),
                                         row(1048576, 262144, 12345.6e-6, 123.456, 1234.56)};
  const auto lines = lines_of(format_nccl_tests(run, rows));
  std::vector<std::string> want{
      c_printf("# nccl-tests version %s nccl-headers=%d nccl-library=%d", "2.19.6", 23007, 23007),
      c_printf("# Collective test starting: %s", "all_reduce_perf"),
      c_printf("# nThread %d nGpus %d minBytes %ld maxBytes %ld step: %ld(%s) warmup iters: %d "
               "iters: %d agg iters: %d validation: %d graph: %d unalign: %d",
               1, 2, 8L, 1048576L, 1024L, "factor", 1, 20, 1, 1, 0, 0),
      "#",
      "# Using devices",
      c_printf("#  Rank %2d Group %2d Pid %6d on %10s device %2d [%s] %s", 0, 0, 0, "box", 0,
               "0000:00:00", "GPU-A"),
      c_printf("#  Rank %2d Group %2d Pid %6d on %10s device %2d [%s] %s", 1, 0, 0, "box", 1,
               "0000:01:00", "GPU-A"),
      "#",
      c_printf("# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place "
               "         ",
               "", "", "", "", ""),
      c_printf("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %*s", "size",
               "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time",
               "algbw", "busbw", "#wrong", 0, ""),
      c_printf("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %*s", "(B)",
               "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)",
               "", 0, ""),
      checked_row(8, 2, "  12.35", "  0.00", "  0.00"),
      checked_row(1048576, 262144, " 123.46", "  8.49", "  8.49"),
      // getFloatStr: 12345.60 is 8 wide, so %.1f; 1234.56 (busbw) is 7 wide, so %.1f: 1234.6.
      checked_row(1048576, 262144, "12345.6", "123.46", "1234.6"),
      c_printf("# %-20s : %d %s", "Out of bounds values", 0, "OK"),
      // Mean of every busbw printed: (0.00065 + 8.49 + 1234.56) x 2 / 6.
      c_printf("# %-20s : %g %s", "Avg bus bandwidth", (0.00065 + 8.49 + 1234.56) / 3, ""),
      "#",
      c_printf("# Collective test concluded: %s", "all_reduce_perf"),
      "#",
      "",
  };
  ASSERT_EQ(lines.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i)
    EXPECT_EQ(lines[i], want[i]) << "line " << i + 1;
  // A checked row is 52 + 2 x 33 = 118 characters; unchecked (-c 0, "    N/A") 116.
  EXPECT_EQ(lines[11].size(), 118u);
  NcclTestsRun unchecked = run;
  unchecked.datacheck = 0;
  EXPECT_EQ(lines_of(format_nccl_tests(unchecked, rows))[11].size(), 116u);
}

TEST(NcclTestsTableTest, OptionalLinesFollowTheRunsSettings) {
  NcclTestsRun run = two_gpu_run();
  run.blocking = 3;
  run.parallel_init = 1;
  run.report_cputime = true;
  run.reduced_max_bytes = 7516192768;
  run.program = "sendrecv_perf";
  std::vector<coll::SweepRow> rows{row(8, 2, 2e-5, 0, 0)};
  rows[0].cpu_time_s = 1e-5;  // -C prints the host's time, not the operation's
  const std::string text = format_nccl_tests(run, rows);
  EXPECT_NE(text.find("\n# Blocking Enabled: wait and barrier after each outer iteration (-n); "
                      "time excludes barrier \n# Parallel Init Enabled: threads call into "
                      "NcclInitRank concurrently \n#\n# Using devices\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\n#\n# Reducing maxBytes to 7516192768 due to memory limitation\n#\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  cputime   algbw"), std::string::npos) << text;
  // sendrecv checks its out-of-place result only (sendrecv.cu: no in-place support).
  EXPECT_NE(text.find("       0    10.00"), std::string::npos) << text;
  EXPECT_NE(text.find("    N/A\n"), std::string::npos) << text;
}

TEST(NcclTestsTableTest, JsonIsTheBinarysSchema) {
  NcclTestsRun run = two_gpu_run();
  run.env = {"NCCL_ALGO=Ring"};
  const std::vector<coll::SweepRow> rows{row(8, 2, 12.5e-6, 0.00064, 0.00064)};
  const std::string text = nccl_tests_json(run, rows, "{\"simulated\":true}");
  const Json doc = Json::parse(text);
  EXPECT_EQ(doc["version"], 3);
  EXPECT_EQ(doc["args"][0], "all_reduce_perf");
  EXPECT_EQ(doc["config"]["ngpus"], 2);
  EXPECT_EQ(doc["config"]["step_factor"], 1024);
  EXPECT_EQ(doc["config"]["blocking_collectives"], "false");  // jsonBool writes strings
  EXPECT_EQ(doc["config"]["devices"][1]["device_hex"], "0000:01:00");
  const auto& r = doc["results"][0];
  EXPECT_EQ(r["root"], "    -1");  // the "%6i" text
  EXPECT_DOUBLE_EQ(r["out_of_place"]["time"].get<double>(), 12.5);
  EXPECT_DOUBLE_EQ(r["in_place"]["nwrong"].get<double>(), 0.0);
  EXPECT_EQ(r["actual_iterations"], 20);
  EXPECT_EQ(doc["out_of_bounds"]["okay"], "true");
  EXPECT_DOUBLE_EQ(doc["average_bus_bandwidth"]["bandwidth"].get<double>(), 0.00064);
  EXPECT_EQ(doc["average_bus_bandwidth"]["okay"], "unchecked");
  EXPECT_EQ(doc["linksim"]["simulated"], true);
  // Doubles as "%lf" prints them, and '/' escaped as sanitizeJson does.
  EXPECT_NE(text.find("\"time\":12.500000,"), std::string::npos) << text;
  run.argv.push_back("/tmp/x.json");
  EXPECT_NE(nccl_tests_json(run, rows).find("\"\\/tmp\\/x.json\""), std::string::npos);
}

// Issue 38, item 5: one rank's in-place run differs from its out-of-place one (NCCL copies the
// buffer out of place only): the in-place columns and the JSON show that run.
// Before, the in-place columns repeated the out-of-place figures.
TEST(NcclTestsTableTest, AnInPlaceRunOfItsOwnIsPrintedApart) {
  NcclTestsRun run = two_gpu_run();
  run.gpus_per_thread = 1;
  run.ranks.resize(1);
  coll::SweepRow one_rank = row(1073741824, 268435456, 1323.30e-6, 811.41, 0);
  one_rank.in_place = one_rank.outcome;
  one_rank.in_place->time_s = 6.79e-6;
  one_rank.in_place->algbw_Bps = 158136e9;
  const auto lines = lines_of(format_nccl_tests(run, {one_rank}));
  char root[100];
  std::snprintf(root, sizeof root, "%6i", -1);
  EXPECT_EQ(lines.at(10),
            c_printf("%12li  %12li  %8s  %6s  %6s", 1073741824L, 268435456L, "float", "sum", root) +
                c_printf("  %7s  %6s  %6s  %6g", "1323.30", "811.41", "  0.00", 0.0) +
                c_printf("  %7s  %6s  %6s  %6g", "   6.79", "158136", "  0.00", 0.0));
  const Json doc = Json::parse(nccl_tests_json(run, {one_rank}));
  EXPECT_DOUBLE_EQ(doc["results"][0]["out_of_place"]["time"].get<double>(), 1323.30);
  EXPECT_DOUBLE_EQ(doc["results"][0]["in_place"]["time"].get<double>(), 6.79);
  EXPECT_DOUBLE_EQ(doc["results"][0]["in_place"]["alg_bw"].get<double>(), 158136);
}

// --explain names the host memory that stages a crossing's NIC traffic where GPUDirect RDMA
// is off, and why: p3dn's one EFA interface hangs off socket 0's root complex, so node0/gpu7
// (under socket 1) is SYS from it and node1/gpu0 PHB, both beyond NCCL's default level.
TEST(ExplainNetwork, NamesTheHostMemoryThatStagesNicTraffic) {
  const topo::Topology p3dn = topo::load_topology("aws-p3dn-x2");
  const coll::Communicator comm(p3dn, p3dn.nodes_of(topo::NodeKind::gpu));
  const std::string text = explain_network(comm);
  EXPECT_NE(text.find("#   ring  0: node0/gpu7 -> node1/gpu0 via node0/efa0 (rail 0), node1/efa0 "
                      "(rail 0)\n"
                      "#     node0/gpu7 -> node0/efa0: host-staged through node0/cpu1's memory "
                      "(GPU-NIC path SYS is beyond NCCL's default GDR level P2C)\n"
                      "#     node1/efa0 -> node1/gpu0: host-staged through node1/cpu0's memory "
                      "(GPU-NIC path PHB is beyond NCCL's default GDR level P2C)\n"),
            std::string::npos)
      << text;
  // p4d's NICs share PCIe switches with their GPUs: GPUDirect RDMA, no staging line.
  const topo::Topology p4d = topo::load_topology("aws-p4d-x2");
  const coll::Communicator direct(p4d, p4d.nodes_of(topo::NodeKind::gpu));
  EXPECT_EQ(explain_network(direct).find("host-staged"), std::string::npos);
}

}  // namespace
}  // namespace linksim::report
