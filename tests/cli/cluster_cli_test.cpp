// The cluster commands of docs/cluster-format.md end to end: nccl-tests and topo show with
// --nodes, a shipped cluster, and the flag's bad values.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "sim/core/data_dir.hpp"
#include "tests/support/temp_files.hpp"

namespace linksim {
namespace {

using testing::run_linksim;

TEST(ClusterCli, NcclTestsOnTwoP5NodesExplainsNicsRailsAndTheBottleneck) {
  const auto r = run_linksim(
      "nccl-tests --topology aws-p5.48xlarge --nodes 2 --np 16 all_reduce_perf -b 8 -e 1G -f 1024 "
      "-g 1 --explain");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // 16 ranks, the second host's as node1 numbers them.
  EXPECT_NE(r.out.find("#  Rank 15 Group  0 Pid     15 on      node1 device  7"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("# linksim: 2 nodes x 8 GPUs; fabric efa_v2 rail_optimized; its network "
                       "plugin reports 75 "
                       "us to NCCL's model; 8 ring(s)"),
            std::string::npos)
      << r.out;
  // Ring 0 leaves node0 from GPU 7 by rail 0, forwarded over NVLink to GPU 0 (PXN).
  EXPECT_NE(r.out.find("ring  0: node0/gpu7 -> node1/gpu0 via node0/nic0 (rail 0), node1/nic0 "
                       "(rail 0); PXN through node0/gpu0"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("bottleneck: node0/nic"), std::string::npos) << r.out;
}

// The first column of the first data row: the out-of-place time, us.
double first_time_us(const std::string& out) {
  std::size_t at = 0;
  while (at < out.size()) {
    const std::size_t end = out.find('\n', at);
    const std::string line = out.substr(at, end - at);
    if (!line.empty() && line[0] != '#') {
      char* rest = nullptr;
      std::strtod(line.c_str(), &rest);       // size
      std::strtod(rest, &rest);               // count
      for (int skip = 0; skip < 3; ++skip) {  // type, redop, root
        while (*rest == ' ')
          ++rest;
        while (*rest != ' ' && *rest != '\0')
          ++rest;
      }
      return std::strtod(rest, nullptr);
    }
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return -1;
}

TEST(ClusterCli, EfaV2PaysItsOwnNicLatencyOnTheP5Pair) {
  // The shipped p5 pair (efa_v2) against the same file on EFA v1's figures. An 8-byte
  // all-reduce runs Tree/LL on one channel either way: up node0's chain, across to node1 and
  // back, so two network messages, each crossing two NICs. The difference is the NIC latency
  // alone: 2 messages x 2 NICs x (32.5 - 4.5) us = 112 us.
  nlohmann::json doc;
  {
    std::ifstream in(data_dir() + "/topologies/clusters/aws-p5-x2.json");
    ASSERT_TRUE(in);
    doc = nlohmann::json::parse(in);
  }
  doc["cluster"]["host"] = data_dir() + "/topologies/aws-p5.48xlarge.json";
  doc["cluster"]["fabric"]["kind"] = "efa";
  testing::TempDir dir;
  const std::string v1 = dir.write("p5-on-efa-v1.json", doc.dump());
  const std::string args = " --np 16 all_reduce_perf -b 8 -e 8 -g 1";
  const auto shipped = run_linksim("nccl-tests --topology aws-p5-x2" + args);
  const auto older = run_linksim("nccl-tests --topology " + testing::shell_quote(v1) + args);
  ASSERT_EQ(shipped.exit_code, 0) << shipped.err;
  ASSERT_EQ(older.exit_code, 0) << older.err;
  // nccl-tests prints two decimals.
  EXPECT_NEAR(first_time_us(older.out) - first_time_us(shipped.out), 112.0, 0.011)
      << shipped.out << older.out;
}

TEST(ClusterCli, TopoShowSummaryPrintsTheHostThenTheFabric) {
  const auto r = run_linksim("topo show aws-p4de-x2 --summary");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Cluster: 2 nodes of aws-p4de.24xlarge (16 GPUs), 4 rails"),
            std::string::npos)
      << r.out;
  // 4 EFA ports of 100 Gb/s at 85%: 4 x 12.5 x 0.85 = 42.5 GB/s per node, 5.3 per GPU.
  EXPECT_NE(r.out.find("Scale-out per GPU: 5.3 GB/s per direction (42.5 GB/s per node, 4 NICs "
                       "of 100 Gb/s)"),
            std::string::npos)
      << r.out;
}

TEST(ClusterCli, CompareScalesEveryMachineWithNodes) {
  // 4 nodes of each: 32 GPUs, data parallelism filling them.
  const auto r = run_linksim("compare llama3-8b-2xp4d-or-1xp5 --nodes 4 --format csv");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("aws-p4d.24xlarge-x4,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("aws-p5.48xlarge-x4,"), std::string::npos) << r.out;
}

TEST(ClusterCli, BadNodeCountsAndMachinesWithoutNicsExitTwo) {
  for (const char* args : {"nccl-tests --topology dgx-h100 --nodes 0 all_reduce_perf",
                           "nccl-tests --topology dgx-h100 --nodes 100000 all_reduce_perf"}) {
    const auto r = run_linksim(args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_NE(r.err.find("--nodes"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty());
  }
  // 8,193 nodes of 8 GPUs is past the 65,536-GPU bound (8,192 is exactly at it): refused before
  // any work, naming the machine file.
  const auto big = run_linksim("run default -t dgx-a100 --nodes 8193");
  EXPECT_EQ(big.exit_code, 2);
  EXPECT_TRUE(big.out.empty());
  EXPECT_NE(big.err.find("dgx-a100.json: cannot run dgx-a100 on 8193 nodes: 8193 nodes of 8 GPUs "
                         "is 65544 GPUs; linksim builds at most 65536 nodes and 65536 GPUs"),
            std::string::npos)
      << big.err;
  const auto r = run_linksim("nccl-tests --topology rtx4090-2x --nodes 2 all_reduce_perf");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("rtx4090-2x.json: cannot run rtx4090-2x on 2 nodes: the machine "
                       "\"rtx4090-2x\" has no compute NICs to join a fabric"),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(r.out.empty());
}

}  // namespace
}  // namespace linksim
