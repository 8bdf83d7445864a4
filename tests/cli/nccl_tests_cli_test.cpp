// `linksim nccl-tests --topology X BINARY <nccl-tests arguments>` end to end: real command lines
// run unchanged, the launch modes, the binary's own output layout (nccl-tests 2.19.6, src/util.cu
// and src/common.cu @a0b82b22) and its -J file. Layout checks do not depend on the simulated
// times, which the collective model refines.
#include <gtest/gtest.h>

#include <sstream>

#include "sim/core/json_view.hpp"
#include "tests/support/temp_files.hpp"

namespace linksim {
namespace {

using testing::read_file;
using testing::run_linksim;
using testing::shell_quote;
using testing::source_dir;
using testing::TempDir;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    out.push_back(line);
  return out;
}

// The table rows: the lines that do not start with '#' and are not empty.
std::vector<std::string> rows_of(const std::string& text) {
  std::vector<std::string> out;
  for (const auto& l : lines_of(text)) {
    if (!l.empty() && l[0] != '#') out.push_back(l);
  }
  return out;
}

// The out-of-place time (us) of the first row.
double first_time_us(const std::string& text) {
  const auto rows = rows_of(text);
  if (rows.empty()) return -1;
  std::istringstream row(rows.front());
  std::string size, count, type, redop, root;
  double time_us = -1;
  row >> size >> count >> type >> redop >> root >> time_us;
  return time_us;
}

// ../shared/reference/measurements.md, AWS p3dn.24xlarge x2: "all_reduce_perf -b 8 -e 1G -f 2
// -g 1 -c 1 -n 100" under mpirun on 16 GPUs.
TEST(NcclTestsCli, ACommandLinePastedFromALogRunsUnchanged) {
  const auto r = run_linksim(
      "nccl-tests --topology aws-p3dn.24xlarge --nodes 2 --np 16 all_reduce_perf -b 8 -e 1G -f 2 "
      "-g 1 -c 1 -n 100");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto lines = lines_of(r.out);
  EXPECT_EQ(lines[1], "# Collective test starting: all_reduce_perf");
  EXPECT_EQ(lines[2],
            "# nThread 1 nGpus 1 minBytes 8 maxBytes 1073741824 step: 2(factor) warmup iters: 1 "
            "iters: 100 agg iters: 1 validation: 1 graph: 0 unalign: 0");
  // 16 ranks, one process each, the second host's as it numbers its GPUs.
  EXPECT_NE(r.out.find("\n#  Rank 15 Group  0 Pid     15 on      node1 device  7 ["),
            std::string::npos)
      << r.out;
  // 8 B .. 1 GiB doubling: 2^3 .. 2^30 = 28 rows, each 118 characters (checked: #wrong 0).
  const auto rows = rows_of(r.out);
  ASSERT_EQ(rows.size(), 28u);
  for (const auto& row : rows)
    EXPECT_EQ(row.size(), 118u) << row;
  EXPECT_EQ(lines[lines.size() - 1], "");
  EXPECT_EQ(lines[lines.size() - 2], "#");
  EXPECT_EQ(lines[lines.size() - 3], "# Collective test concluded: all_reduce_perf");
  EXPECT_EQ(lines[lines.size() - 6], "# Out of bounds values : 0 OK");
  EXPECT_EQ(lines[lines.size() - 5].substr(0, 25), "# Avg bus bandwidth    : ");
}

// nccl-tests' defaults: one process, one thread, one GPU; -c 0 prints N/A (116 characters).
TEST(NcclTestsCli, TheWorldIsProcessesTimesThreadsTimesGpus) {
  const auto one = run_linksim("nccl-tests --topology dgx-a100 all_reduce_perf -b 1K -e 1K -c 0");
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_NE(one.out.find("#  Rank  0 "), std::string::npos);
  EXPECT_EQ(one.out.find("#  Rank  1 "), std::string::npos) << one.out;
  ASSERT_EQ(rows_of(one.out).size(), 1u);
  EXPECT_EQ(rows_of(one.out)[0].size(), 116u);
  // 2 processes x 2 threads x 2 GPUs = 8 ranks; the size forms of parsesize ("1KB").
  const auto eight =
      run_linksim("nccl-tests --topology dgx-a100 --np 2 all_reduce_perf -t 2 -g 2 -b 1KB -e 4KB");
  ASSERT_EQ(eight.exit_code, 0) << eight.err;
  EXPECT_NE(eight.out.find("# nThread 2 nGpus 2 minBytes 1024 maxBytes 4096 step: 1048576(bytes)"),
            std::string::npos)
      << eight.out;
  EXPECT_NE(eight.out.find("#  Rank  7 Group  0 Pid      1 on   dgx-a100 device  7"),
            std::string::npos)
      << eight.out;
  const auto too_many = run_linksim("nccl-tests --topology dgx-a100 --np 3 all_reduce_perf -g 4");
  EXPECT_EQ(too_many.exit_code, 2);
  EXPECT_EQ(too_many.out, "");
  EXPECT_NE(too_many.err.find("3 processes x 1 threads (-t) x 4 GPUs per thread (-g) = 12 ranks, "
                              "but the machine has 8 GPUs"),
            std::string::npos)
      << too_many.err;
}

// --topology repeats as in run and compare: the first machine runs, the others are only drawn
// beside it by --plot, so the printout is the first machine's alone.
TEST(NcclTestsCli, TheFirstOfSeveralTopologiesRuns) {
  const std::string binary = " all_reduce_perf -b 1K -e 1K -c 0";
  const auto one = run_linksim("nccl-tests --topology dgx-a100" + binary);
  ASSERT_EQ(one.exit_code, 0) << one.err;
  const auto two = run_linksim("nccl-tests --topology dgx-a100 --topology dgx-h100" + binary);
  ASSERT_EQ(two.exit_code, 0) << two.err;
  EXPECT_EQ(two.out, one.out);
}

// A host that takes 100 us per launch per GPU: every run below is launch-bound, so the
// differences are exact whatever the GPUs' own time T (sim/coll/sweep.hpp's pipeline, n = 20):
// -g 2: 200 + T/20; --np 2 -g 1: 100 + T/20; -g 2 -m 4: (20 x 200 + 4T) / 80 = 50 + T/20;
// -g 2 -z 1: 200 + T, the same as -g 2 -n 1.
TEST(NcclTestsCli, LaunchModesPaceAsNcclTestsLaunches) {
  TempDir dir;
  Json doc = Json::parse(read_file(source_dir() + "/topologies/rtx2080ti-2x.json"));
  doc.erase("$schema");
  doc["host_launch"] = {{"per_gpu", "100 us"}};
  const std::string machine = dir.write("slow-host.json", doc.dump());
  const std::string base = "nccl-tests --topology " + machine;
  const auto time_of = [&](const std::string& args) {
    const auto r = run_linksim(base + args);
    EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.err;
    return first_time_us(r.out);
  };
  const double one_thread = time_of(" all_reduce_perf -b 8 -e 8 -g 2");
  const double two_processes = time_of(" --np 2 all_reduce_perf -b 8 -e 8 -g 1");
  const double aggregated = time_of(" all_reduce_perf -b 8 -e 8 -g 2 -m 4");
  const double blocking = time_of(" all_reduce_perf -b 8 -e 8 -g 2 -z 1");
  const double single = time_of(" all_reduce_perf -b 8 -e 8 -g 2 -n 1");
  EXPECT_GT(one_thread, 200.0);
  EXPECT_NEAR(one_thread - two_processes, 100.0, 0.015);  // printed to 0.01 us
  EXPECT_NEAR(one_thread - aggregated, 150.0, 0.015);
  EXPECT_NEAR(blocking, single, 0.015);
  // The GPUs' T from the single run, then a CUDA graph of 100 iterations (-G 1): W = 100 T >
  // H = 200 us, so (100 T + 200) / 100 = T + 2 us.
  const double t_us = single - 200.0;
  EXPECT_NEAR(time_of(" all_reduce_perf -b 8 -e 8 -g 2 -n 100 -G 1"), t_us + 2.0, 0.015);
  const auto explained = run_linksim(base + " all_reduce_perf -b 8 -e 8 -g 2 --explain");
  EXPECT_NE(explained.out.find("bottleneck: the host's kernel launches"), std::string::npos)
      << explained.out;
}

TEST(NcclTestsCli, EveryLoopSimulatesWhatTheTrendStandsIn) {
  // Two p3dn nodes at 2 GiB: NCCL's tree never repeats a period there, so by default 160 of its
  // 256 loops are simulated and --explain says the rest follow their trend
  // (SlicePipelineTest.ATreeAcrossNodesThatNeverRepeatsFollowsItsTrend); --every-loop runs all
  // 256 and says nothing of a trend. The two agree to within 0.5%, and are not the same run.
  const std::string base =
      "nccl-tests --topology aws-p3dn-x2 --np 16 all_reduce_perf -b 2G -e 2G -g 1 --explain";
  const auto trend = run_linksim(base);
  const auto every = run_linksim(base + " --every-loop");
  ASSERT_EQ(trend.exit_code, 0) << trend.err;
  ASSERT_EQ(every.exit_code, 0) << every.err;
  EXPECT_NE(trend.out.find("; 160 of 256 loops simulated, the rest at their trend (no period "
                           "repeats)"),
            std::string::npos)
      << trend.out;
  EXPECT_EQ(every.out.find("loops simulated"), std::string::npos) << every.out;
  const double trend_us = first_time_us(trend.out);
  const double every_us = first_time_us(every.out);
  EXPECT_NE(trend_us, every_us);
  EXPECT_NEAR(trend_us / every_us, 1.0, 5e-3);
}

TEST(NcclTestsCli, AllTypesAllOpsAndAllRoots) {
  // dgx-a100 (Ampere, no fp8): 10 types x 6 reductions, one size each.
  const auto all = run_linksim(
      "nccl-tests --topology dgx-a100 all_reduce_perf -b 8K -e 8K -g 8 "
      "-d all -o all");
  ASSERT_EQ(all.exit_code, 0) << all.err;
  const auto rows = rows_of(all.out);
  ASSERT_EQ(rows.size(), 60u);
  EXPECT_NE(rows[0].find("      int8     sum"), std::string::npos) << rows[0];
  EXPECT_NE(rows[5].find("      int8  mulsum"), std::string::npos) << rows[5];
  // Broadcast from every root (-r -1) on 2 GPUs: roots 0 and 1; its redop prints "none".
  const auto roots =
      run_linksim("nccl-tests --topology rtx2080ti-2x broadcast_perf -b 8 -e 8 -g 2 -r -1");
  ASSERT_EQ(roots.exit_code, 0) << roots.err;
  const auto broadcast = rows_of(roots.out);
  ASSERT_EQ(broadcast.size(), 2u);
  EXPECT_EQ(broadcast[0].substr(36, 16), "    none       0");
  EXPECT_EQ(broadcast[1].substr(36, 16), "    none       1");
  // sendrecv prints the reduction's name (sendrecv.cu passes it), and N/A in place.
  const auto sr = run_linksim("nccl-tests --topology rtx2080ti-2x sendrecv_perf -b 8 -e 8 -g 2");
  ASSERT_EQ(sr.exit_code, 0) << sr.err;
  ASSERT_EQ(rows_of(sr.out).size(), 1u);
  EXPECT_EQ(rows_of(sr.out)[0].substr(36, 16), "     sum      -1");
  EXPECT_EQ(rows_of(sr.out)[0].substr(rows_of(sr.out)[0].size() - 7), "    N/A");
}

TEST(NcclTestsCli, TheFourP2pBinariesRun) {
  for (const char* binary : {"scatter_perf", "gather_perf", "alltoallv_perf", "hypercube_perf"}) {
    const auto r =
        run_linksim(std::string("nccl-tests --topology dgx-a100 ") + binary + " -b 1M -e 1M -g 8");
    ASSERT_EQ(r.exit_code, 0) << binary << ": " << r.err;
    EXPECT_EQ(rows_of(r.out).size(), 1u) << binary << r.out;
  }
  // hypercube needs a power-of-two world; the binary says so and runs nothing.
  const auto odd = run_linksim("nccl-tests --topology dgx-a100 hypercube_perf -g 3");
  ASSERT_EQ(odd.exit_code, 0) << odd.err;
  EXPECT_NE(odd.out.find("nRanks 3 is not a power of 2, skipping\n"), std::string::npos);
}

// common.cu run(): 24 GiB RTX 4090s reserve ceil(24/16) = 2 GiB and 1 GiB more, and hold three
// buffers: (24 - 2 - 1) GiB / 3 = 7 GiB = 7516192768 bytes.
TEST(NcclTestsCli, MaxBytesShrinksToTheGpusMemory) {
  const auto r =
      run_linksim("nccl-tests --topology rtx4090-2x all_reduce_perf -b 8G -e 64G -f 2 -g 2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\n#\n# Reducing maxBytes to 7516192768 due to memory limitation\n"),
            std::string::npos)
      << r.out;
  // minBytes follows it down: one row, of 7 GiB.
  const auto rows = rows_of(r.out);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].substr(0, 12), "  7516192768");
}

TEST(NcclTestsCli, JsonFileIsNcclTestsOwn) {
  TempDir dir;
  const std::string path = dir.path() + "/run.json";
  const auto r = run_linksim(
      "nccl-tests --topology rtx2080ti-2x all_reduce_perf -b 8 -e 64 -f 8 "
      "-g 2 -J " +
      shell_quote(path));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.substr(0, 25 + path.size() + 1), "# Writing JSON output to " + path + "\n");
  const Json doc = Json::parse(read_file(path));
  EXPECT_EQ(doc["config"]["nthreads"], 1);
  EXPECT_EQ(doc["results"].size(), 2u);  // 8 and 64 bytes
  EXPECT_EQ(doc["results"][0]["root"], "    -1");
  EXPECT_TRUE(doc["results"][0]["out_of_place"]["nwrong"].is_number());
  EXPECT_TRUE(doc["average_bus_bandwidth"]["bandwidth"].is_number());
  EXPECT_EQ(doc["linksim"]["simulated"], true);
  // As nccl-tests does, a second run does not overwrite: it writes run.json.0.
  const auto again = run_linksim("nccl-tests --topology rtx2080ti-2x all_reduce_perf -g 2 -J " +
                                 shell_quote(path));
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.out.substr(0, 25 + path.size() + 3), "# Writing JSON output to " + path + ".0\n");
}

// -J naming what nccl-tests would not write runs as nccl-tests runs (exit 0, the same table) and
// says so on stderr: a name without .json, and a folder that is not there (nccl-tests prints its
// own "skipping" line for that one).
TEST(NcclTestsCli, JsonFileNotWrittenIsSaidOnStderr) {
  TempDir dir;
  const auto empty =
      run_linksim("nccl-tests --topology rtx2080ti-2x all_reduce_perf -b 8 -e 8 -g 2 -J ''");
  ASSERT_EQ(empty.exit_code, 0) << empty.err;
  EXPECT_NE(empty.err.find("linksim: note: -J \"\": nothing written; nccl-tests writes JSON only "
                           "to a file name ending in .json\n"),
            std::string::npos)
      << empty.err;
  const std::string missing = dir.path() + "/no/run.json";
  const auto m =
      run_linksim("nccl-tests --topology rtx2080ti-2x all_reduce_perf -b 8 -e 8 -g 2 -J " +
                  shell_quote(missing));
  ASSERT_EQ(m.exit_code, 0) << m.err;
  EXPECT_EQ(lines_of(m.out).at(0), "# skipping json output; " + missing + " not accessible");
  EXPECT_NE(m.err.find("nothing written (no folder " + dir.path() + "/no)"), std::string::npos)
      << m.err;
}

TEST(NcclTestsCli, UnmodelledFlagsAreStatedOnStderr) {
  const auto r = run_linksim(
      "nccl-tests --topology rtx2080ti-2x all_reduce_perf -b 8 -e 8 -g 2 -a 0 -R 1 -T 10");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("linksim: note: -a: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("linksim: note: -R: "), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("linksim"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace linksim
