// NCCL's environment in `linksim nccl-tests` (issue 35): NCCL_NET_GDR_LEVEL across nodes, the
// per-operation NCCL_ALGO, a clamp's note, a refusal's exit status, and a cluster file's nccl_env
// taking the same variables as the environment.
#include <gtest/gtest.h>

#include <string>

#include "tests/support/environment_test.hpp"
#include "tests/support/temp_files.hpp"

namespace linksim {
namespace {

using testing::run_linksim;

class NcclEnvVariablesCliTest : public testing::EnvironmentTest {};

// The explain line of the one size ("#   -> Ring/Simple 24 channel(s); ...").
std::string explain_line(const std::string& out) {
  const auto at = out.find("#   -> ");
  return at == std::string::npos ? std::string() : out.substr(at, out.find('\n', at) - at);
}

TEST_F(NcclEnvVariablesCliTest, GdrLevelStagesTheNicsTrafficBelowIt) {
  // Two p4d nodes: every GPU's EFA NIC is behind its own PCIe switch (PIX), so PIX and SYS leave
  // GPUDirect RDMA on (the run is byte for byte the unset one), and LOC turns it off: every NIC
  // byte then crosses the root complex twice, and the run is slower.
  const std::string run =
      "nccl-tests --topology aws-p4d.24xlarge --nodes 2 --np 16 all_reduce_perf -b 1G -e 1G -g 1";
  const auto plain = run_linksim(run);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  set("NCCL_NET_GDR_LEVEL", "PIX");
  const auto pix = run_linksim(run);
  ASSERT_EQ(pix.exit_code, 0) << pix.err;
  EXPECT_EQ(pix.err.find("not modelled"), std::string::npos) << pix.err;
  set("NCCL_NET_GDR_LEVEL", "LOC");
  const auto loc = run_linksim(run);
  ASSERT_EQ(loc.exit_code, 0) << loc.err;
  const auto avg = [](const std::string& out) {
    const auto at = out.find("# Avg bus bandwidth    : ");
    return std::atof(out.c_str() + at + 25);
  };
  EXPECT_LT(avg(loc.out), avg(plain.out));
}

TEST_F(NcclEnvVariablesCliTest, PerOperationAlgoChoosesTheRunsOperation) {
  const std::string run =
      "nccl-tests --topology dgx-h100 all_reduce_perf -b 1G -e 1G -g 8 --explain";
  // "allgather:tree" names no AllReduce entry: all_reduce keeps every algorithm (NVLS, as
  // unset); "allreduce:ring;allgather:tree" gives AllReduce Ring.
  set("NCCL_ALGO", "allgather:tree");
  const auto other = run_linksim(run);
  ASSERT_EQ(other.exit_code, 0) << other.err;
  EXPECT_EQ(explain_line(other.out).rfind("#   -> NVLS/", 0), 0u) << explain_line(other.out);
  set("NCCL_ALGO", "allreduce:ring;allgather:tree");
  const auto ring = run_linksim(run);
  ASSERT_EQ(ring.exit_code, 0) << ring.err;
  EXPECT_EQ(explain_line(ring.out).rfind("#   -> Ring/", 0), 0u) << explain_line(ring.out);
  set("NCCL_ALGO", "alltoall:ring");
  const auto bad = run_linksim(run);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err,
            "linksim: error: NCCL_ALGO: \"alltoall:ring\": unknown operation \"alltoall\"; "
            "expected one of Broadcast, Reduce, AllGather, ReduceScatter, AllReduce\n");
  EXPECT_EQ(bad.out, "");
}

TEST_F(NcclEnvVariablesCliTest, AwsOfiTunerTypeInternalLeavesThePickToNccl) {
  // Four p6-b200 nodes, 256 MiB: aws-ofi-nccl's region tuner runs Ring/LL128 where NCCL's model
  // would run NVLSTree/Simple; OFI_NCCL_TUNER_TYPE=Internal (any case) hands the pick back to
  // the model; "Model" (its model-based tuner) is noted as not modelled and the regions stay.
  const std::string run =
      "nccl-tests --topology aws-p6-b200-x4 all_reduce_perf -b 256M -e 256M -g 32 --explain";
  const auto plain = run_linksim(run);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(explain_line(plain.out).rfind("#   -> Ring/LL128 ", 0), 0u) << explain_line(plain.out);
  EXPECT_NE(explain_line(plain.out).find("picked by aws-ofi-nccl's region tuner"),
            std::string::npos);
  set("OFI_NCCL_TUNER_TYPE", "internal");
  const auto internal = run_linksim(run);
  ASSERT_EQ(internal.exit_code, 0) << internal.err;
  EXPECT_EQ(explain_line(internal.out).rfind("#   -> NVLSTree/Simple ", 0), 0u)
      << explain_line(internal.out);
  EXPECT_EQ(internal.err.find("not modelled"), std::string::npos) << internal.err;
  set("OFI_NCCL_TUNER_TYPE", "Model");
  const auto model = run_linksim(run);
  ASSERT_EQ(model.exit_code, 0) << model.err;
  EXPECT_EQ(explain_line(model.out), explain_line(plain.out));
  EXPECT_NE(model.err.find("linksim: note: OFI_NCCL_TUNER_TYPE=Model: aws-ofi-nccl's "
                           "model-based tuner is not modelled; linksim keeps its region tuner\n"),
            std::string::npos)
      << model.err;
}

TEST_F(NcclEnvVariablesCliTest, ClampsAreNotedAndRefusalsStopTheRun) {
  const std::string run = "nccl-tests --topology dgx-a100 all_reduce_perf -b 64K -e 64K -g 8";
  set("NCCL_NTHREADS", "1000");
  const auto clamped = run_linksim(run);
  ASSERT_EQ(clamped.exit_code, 0) << clamped.err;
  EXPECT_NE(clamped.err.find("linksim: note: NCCL_NTHREADS=1000 is not a multiple of 32; NCCL "
                             "uses 512\n"),
            std::string::npos)
      << clamped.err;
  EXPECT_EQ(clamped.err.find("is not modelled"), std::string::npos) << clamped.err;
  set("NCCL_P2P_LEVEL", "FOO");
  const auto bad = run_linksim(run);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("linksim: error: NCCL_P2P_LEVEL: \"FOO\" is not a path level"),
            std::string::npos)
      << bad.err;
}

TEST_F(NcclEnvVariablesCliTest, P2pDisableSlowsAnNvswitchNode) {
  // DGX A100 with every pair through SHM instead of NVLink: far below the NVLink figure, and the
  // variable is no longer named as ignored.
  const std::string run = "nccl-tests --topology dgx-a100 all_reduce_perf -b 1G -e 1G -g 8";
  const auto plain = run_linksim(run);
  set("NCCL_P2P_DISABLE", "1");
  const auto off = run_linksim(run);
  ASSERT_EQ(off.exit_code, 0) << off.err;
  EXPECT_EQ(off.err.find("NCCL_P2P_DISABLE"), std::string::npos) << off.err;
  EXPECT_NE(off.out, plain.out);
}

}  // namespace
}  // namespace linksim
