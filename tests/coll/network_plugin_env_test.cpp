// What a cluster's network plugin puts in NCCL's environment (fabric "nccl_env",
// topo::NcclEnvDefaults): the loader reads and checks it, the fabric summary shows it, the
// planner keeps to its NCCL_PROTO unless the caller names protocols, and its NCCL_BUFFSIZE sets
// the Simple chunks every algorithm cuts.
#include <gtest/gtest.h>

#include <string>

#include "sim/coll/collective_sim.hpp"
#include "sim/coll/communicator.hpp"
#include "sim/core/error.hpp"
#include "sim/topo/fabric_summary.hpp"
#include "sim/topo/loader.hpp"
#include "tests/support/temp_files.hpp"
#include "tests/support/thrown_message.hpp"
#include "tests/support/two_gpu_host.hpp"

namespace linksim::coll {
namespace {

class NetworkPluginEnv : public ::testing::Test {
 protected:
  testing::TempDir dir;
  std::string host = dir.write("h.json", testing::two_gpu_host_json());

  topo::Topology load(const std::string& fabric) {
    return topo::load_topology(dir.write("c.json", testing::cluster_json(host, 2, fabric)));
  }
  std::string error_of(const std::string& fabric) {
    return testing::thrown_message<InputError>([&] { load(fabric); });
  }
};

TEST_F(NetworkPluginEnv, TheFileStatesItAndTheSummaryShowsIt) {
  const topo::Topology plain = load("{}");
  EXPECT_TRUE(plain.cluster->fabric.nccl_env.empty());
  const topo::Topology aws = load(
      R"({"nccl_env": {"NCCL_PROTO": "simple", "NCCL_BUFFSIZE": 8388608, "source": "plugin"}})");
  const auto& env = aws.cluster->fabric.nccl_env;
  ASSERT_TRUE(env.protocols);
  EXPECT_EQ(*env.protocols, (std::array<bool, 3>{false, false, true}));
  ASSERT_TRUE(env.buffsize_bytes);
  EXPECT_EQ(*env.buffsize_bytes, 8388608.0);
  EXPECT_NE(describe_fabric(aws, summarize_fabric(aws))
                .find("NCCL environment from the network plugin: NCCL_PROTO=Simple "
                      "NCCL_BUFFSIZE=8388608 (plugin)\n"),
            std::string::npos);
  // NCCL_PROTO's "^list": all but those.
  EXPECT_EQ(*load(R"({"nccl_env": {"NCCL_PROTO": "^LL128"}})").cluster->fabric.nccl_env.protocols,
            (std::array<bool, 3>{true, false, true}));
}

TEST_F(NetworkPluginEnv, BadSettingsAreNamedWithTheirPath) {
  const std::string at = dir.path() + "/c.json: at /cluster/fabric/nccl_env";
  EXPECT_EQ(error_of(R"({"nccl_env": {"NCCL_PROTO": "LL,Fast"}})"),
            at + "/NCCL_PROTO: unknown protocol \"Fast\" in \"LL,Fast\"; expected a list of LL, "
                 "LL128 and Simple, or ^list for all but those");
  EXPECT_EQ(error_of(R"({"nccl_env": {"NCCL_PROTO": "^LL,LL128,Simple"}})"),
            at + "/NCCL_PROTO: \"^LL,LL128,Simple\" allows no protocol");
  EXPECT_EQ(error_of(R"({"nccl_env": {"NCCL_BUFFSIZE": 1024}})"),
            at + "/NCCL_BUFFSIZE: expected a buffer size in bytes from 65536 to 1073741824, got "
                 "1024");
  EXPECT_EQ(error_of(R"({"nccl_env": {"source": "x"}})"),
            at + ": sets none of NCCL_PROTO, NCCL_BUFFSIZE, NCCL_P2P_NET_CHUNKSIZE, "
                 "NCCL_NVLS_CHUNKSIZE, NCCL_P2P_DISABLE, NCCL_P2P_LEVEL, NCCL_SHM_DISABLE, "
                 "NCCL_NET_GDR_LEVEL and NCCL_NTHREADS");
}

TEST_F(NetworkPluginEnv, ThePlannerKeepsToItsProtocolsUnlessTheCallerNamesOthers) {
  const topo::Topology c = load(R"({"nccl_env": {"NCCL_PROTO": "Simple"}})");
  const Communicator comm(c, c.nodes_of(topo::NodeKind::gpu));
  Request r;
  r.op = Op::all_reduce;
  r.size_bytes = 65536;
  for (const Choice& choice : candidate_choices(comm, r))
    EXPECT_EQ(choice.protocol, Protocol::simple) << to_string(choice.algorithm);
  // A caller's own list (the user's NCCL_PROTO, --proto) wins, as the plugin sets only what
  // is unset.
  r.allowed_protocols = {Protocol::ll};
  const auto named = candidate_choices(comm, r);
  ASSERT_FALSE(named.empty());
  for (const Choice& choice : named)
    EXPECT_EQ(choice.protocol, Protocol::ll);
  // Point-to-point sends pick LL or Simple by size alone: 1 KiB of alltoall stays LL.
  Request a2a;
  a2a.op = Op::alltoall;
  a2a.size_bytes = 1024;
  const auto sends = candidate_choices(comm, a2a);
  ASSERT_EQ(sends.size(), 1u);
  EXPECT_EQ(sends.front().protocol, Protocol::ll);
}

TEST_F(NetworkPluginEnv, ItsBufferSizeSetsTheSimpleStep) {
  const topo::Topology plain = load("{}");
  const topo::Topology big = load(R"({"nccl_env": {"NCCL_BUFFSIZE": 8388608}})");
  // NCCL_STEPS = 8 slots: 4 MiB / 8 = 512 KiB by default, 8 MiB / 8 = 1 MiB.
  EXPECT_EQ(Communicator(plain, plain.nodes_of(topo::NodeKind::gpu)).simple_step_bytes(), 524288.0);
  EXPECT_EQ(Communicator(big, big.nodes_of(topo::NodeKind::gpu)).simple_step_bytes(), 1048576.0);
}

TEST_F(NetworkPluginEnv, ItsP2pChunkSetsThePointToPointChunk) {
  const topo::Topology plain = load("{}");
  const topo::Topology set = load(R"({"nccl_env": {"NCCL_P2P_NET_CHUNKSIZE": 524288}})");
  const topo::Topology capped = load(R"({"nccl_env": {"NCCL_P2P_NET_CHUNKSIZE": 2097152}})");
  const topo::Topology roomy =
      load(R"({"nccl_env": {"NCCL_P2P_NET_CHUNKSIZE": 2097152, "NCCL_BUFFSIZE": 33554432}})");
  const auto chunk = [](const topo::Topology& t) {
    return Communicator(t, t.nodes_of(topo::NodeKind::gpu)).p2p_net_chunk_bytes();
  };
  // NCCL's 128 KiB; the plugin's 512 KiB; 2 MiB is cut to a Simple step, 4 MiB / 8 = 512 KiB
  // (init.cc: p2pChunkSize x NCCL_STEPS may not pass the Simple buffer), unless the buffer is
  // 32 MiB (32 MiB / 8 = 4 MiB leaves the 2 MiB whole).
  EXPECT_EQ(chunk(plain), 131072.0);
  EXPECT_EQ(chunk(set), 524288.0);
  EXPECT_EQ(chunk(capped), 524288.0);
  EXPECT_EQ(chunk(roomy), 2097152.0);
  EXPECT_EQ(topo::env_text(set.cluster->fabric.nccl_env), "NCCL_P2P_NET_CHUNKSIZE=524288");
  EXPECT_EQ(error_of(R"({"nccl_env": {"NCCL_P2P_NET_CHUNKSIZE": 1024}})"),
            dir.path() +
                "/c.json: at /cluster/fabric/nccl_env/NCCL_P2P_NET_CHUNKSIZE: expected a chunk "
                "size in bytes from 4096 to 67108864, got 1024");
}

TEST_F(NetworkPluginEnv, ItsNvlsChunkSetsNvlsLargestChunk) {
  const auto chunk = [&](const std::string& fabric) {
    const topo::Topology t = load(fabric);
    return Communicator(t, t.nodes_of(topo::NodeKind::gpu)).nvls_max_chunk_bytes();
  };
  // NCCL's 128 KiB; aws-ofi-nccl's 512 KiB on p5 (under the default buffer's 512 KiB step, so
  // whole); 1 MiB is cut to that 512 KiB step (NVLS takes one Simple step a chunk, enqueue.cc
  // computeColl), unless NCCL_BUFFSIZE is 8 MiB (8 MiB / 8 = 1 MiB).
  EXPECT_EQ(chunk("{}"), 131072.0);
  EXPECT_EQ(chunk(R"({"nccl_env": {"NCCL_NVLS_CHUNKSIZE": 524288}})"), 524288.0);
  EXPECT_EQ(chunk(R"({"nccl_env": {"NCCL_NVLS_CHUNKSIZE": 1048576}})"), 524288.0);
  EXPECT_EQ(chunk(R"({"nccl_env": {"NCCL_NVLS_CHUNKSIZE": 1048576, "NCCL_BUFFSIZE": 8388608}})"),
            1048576.0);
  const topo::Topology p5 =
      load(R"({"nccl_env": {"NCCL_BUFFSIZE": 8388608, "NCCL_NVLS_CHUNKSIZE": 524288}})");
  EXPECT_EQ(topo::env_text(p5.cluster->fabric.nccl_env),
            "NCCL_BUFFSIZE=8388608 NCCL_NVLS_CHUNKSIZE=524288");
  EXPECT_EQ(error_of(R"({"nccl_env": {"NCCL_NVLS_CHUNKSIZE": 8192}})"),
            dir.path() +
                "/c.json: at /cluster/fabric/nccl_env/NCCL_NVLS_CHUNKSIZE: expected a chunk size "
                "in bytes from 16384 to 67108864, got 8192");
}

// A tree all-reduce across nodes moves one chunk a step through every hop. 4 MiB over 2 rings
// x 2 trees is 1 MiB a tree stream: the default 512 KiB step sends it as two chunks, so the
// second chunk's trip over the network overlaps the first's way back; an 8 MiB buffer's 1 MiB
// step sends one chunk, which crosses the network up and then down in series (each crossing
// 1 MiB / 12 GB/s = 87 us of wire time on a NIC port). The one-chunk run must be the slower,
// by less than one crossing (87 us); at 1 GiB both run at the NIC ports' rate.
TEST_F(NetworkPluginEnv, BiggerStepsFillATreeMoreSlowly) {
  const topo::Topology plain = load("{}");
  const topo::Topology big = load(R"({"nccl_env": {"NCCL_BUFFSIZE": 8388608}})");
  const Communicator small_steps(plain, plain.nodes_of(topo::NodeKind::gpu));
  const Communicator big_steps(big, big.nodes_of(topo::NodeKind::gpu));
  const auto time_s = [](const Communicator& comm, double bytes) {
    Request r;
    r.op = Op::all_reduce;
    r.size_bytes = bytes;
    r.algorithm = Algorithm::tree;
    r.protocol = Protocol::simple;
    return simulate_collective(comm, r).time_s;
  };
  const double mid = 4.0 * 1024 * 1024;
  const double crossing_s = 1048576.0 / 12e9;
  EXPECT_GT(time_s(big_steps, mid), time_s(small_steps, mid) + 0.1 * crossing_s);
  EXPECT_LT(time_s(big_steps, mid), time_s(small_steps, mid) + crossing_s);
  const double large = 1024.0 * 1024 * 1024;
  EXPECT_NEAR(time_s(big_steps, large) / time_s(small_steps, large), 1.0, 0.05);
}

}  // namespace
}  // namespace linksim::coll
