// NCCL's environment as NCCL v2.30.7 reads it (topo/nccl_env_read.hpp) and what it changes in a
// communicator: each pair's transport (NCCL_P2P_DISABLE, NCCL_P2P_LEVEL, NCCL_SHM_DISABLE), the
// channels NCCL's size rule keeps (NCCL_NTHREADS), the Simple step (NCCL_BUFFSIZE), and
// NCCL_ALGO / NCCL_PROTO per operation (issue 35).
#include "sim/coll/nccl_env.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "sim/coll/algorithm_registry.hpp"
#include "sim/coll/communicator.hpp"
#include "sim/coll/nccl_selection.hpp"
#include "sim/core/error.hpp"
#include "sim/topo/loader.hpp"
#include "tests/coll/test_machines.hpp"
#include "tests/support/temp_files.hpp"
#include "tests/support/thrown_message.hpp"
#include "tests/support/two_gpu_host.hpp"

namespace linksim::coll {
namespace {

// The environment `vars` gives, and the notes its reading leaves.
struct Read {
  NcclEnvironment env;
  std::vector<std::string> notes;
};
Read read(const std::map<std::string, std::string>& vars) {
  Read r;
  r.env = read_nccl_environment(
      [&](std::string_view name) {
        const auto it = vars.find(std::string(name));
        return it == vars.end() ? std::string() : it->second;
      },
      r.notes);
  return r;
}
std::string error_of(const std::map<std::string, std::string>& vars) {
  return linksim::testing::thrown_message<InputError>([&] { read(vars); });
}

TEST(NcclEnvTest, LevelsAndFlagsAsNcclGetLevelReadsThem) {
  EXPECT_TRUE(read({}).env.empty());
  // paths.cc ncclGetLevel: NCCL_P2P_DISABLE=1 is PATH_LOC and wins over NCCL_P2P_LEVEL.
  EXPECT_EQ(read({{"NCCL_P2P_DISABLE", "1"}, {"NCCL_P2P_LEVEL", "SYS"}}).env.p2p_level,
            NcclPath::loc);
  EXPECT_EQ(read({{"NCCL_P2P_DISABLE", "0"}, {"NCCL_P2P_LEVEL", "PXB"}}).env.p2p_level,
            NcclPath::pxb);
  // Old integers through levelsOldToNew {LOC, PIX, PXB, PHB, SYS, SYS}; above 5 read as 5.
  EXPECT_EQ(read({{"NCCL_P2P_LEVEL", "2"}}).env.p2p_level, NcclPath::pxb);
  EXPECT_EQ(read({{"NCCL_P2P_LEVEL", "3"}}).env.p2p_level, NcclPath::phb);
  EXPECT_EQ(read({{"NCCL_P2P_LEVEL", "9"}}).env.p2p_level, NcclPath::sys);
  EXPECT_TRUE(read({{"NCCL_SHM_DISABLE", "1"}}).env.shm_disable);
  // NCCL_NET_GDR_LEVEL: a GPU-NIC path is PIX or farther, so NVL allows no GPUDirect RDMA.
  EXPECT_EQ(read({{"NCCL_NET_GDR_LEVEL", "NVL"}}).env.net_gdr_level, topo::GdrLevel::off);
  EXPECT_EQ(read({{"NCCL_NET_GDR_LEVEL", "PHB"}}).env.net_gdr_level, topo::GdrLevel::phb);
  EXPECT_EQ(read({{"NCCL_NET_GDR_LEVEL", "1"}}).env.net_gdr_level, topo::GdrLevel::pix);
  EXPECT_EQ(read({{"NCCL_BUFFSIZE", "0x800000"}}).env.buffsize_bytes, 8388608.0);  // strtoll base 0
}

TEST(NcclEnvTest, ClampsAreNotedAndRefusalsNamed) {
  // tuning.cc getNthreads(min 2 x 32 = 64, max 512): 100 is no multiple of 32 -> 512; 1024 -> 512;
  // 32 -> 64; 0 -> NCCL's default (unset).
  EXPECT_EQ(read({{"NCCL_NTHREADS", "256"}}).env.nthreads, 256);
  const Read odd = read({{"NCCL_NTHREADS", "100"}});
  EXPECT_EQ(odd.env.nthreads, 512);
  EXPECT_EQ(odd.notes,
            std::vector<std::string>{"NCCL_NTHREADS=100 is not a multiple of 32; NCCL uses 512"});
  EXPECT_EQ(read({{"NCCL_NTHREADS", "1024"}}).notes,
            std::vector<std::string>{"NCCL_NTHREADS=1024 is above 512; NCCL uses 512"});
  EXPECT_EQ(read({{"NCCL_NTHREADS", "32"}}).env.nthreads, 64);
  EXPECT_FALSE(read({{"NCCL_NTHREADS", "0"}}).env.nthreads);
  EXPECT_EQ(error_of({{"NCCL_P2P_LEVEL", "FOO"}}),
            "NCCL_P2P_LEVEL: \"FOO\" is not a path level; expected LOC, NVL, NVB, C2C, PIX, PXB, "
            "P2C, PXN, PHB, SYS, or an integer from 0 (LOC, PIX, PXB, PHB, SYS, SYS)");
  EXPECT_EQ(error_of({{"NCCL_P2P_DISABLE", "yes"}}),
            "NCCL_P2P_DISABLE: \"yes\": expected 1 (disable) or 0 (NCCL's default)");
  EXPECT_EQ(error_of({{"NCCL_NTHREADS", "abc"}}),
            "NCCL_NTHREADS: \"abc\": expected a whole number of threads per channel, a multiple "
            "of 32 from 64 to 512");
  EXPECT_EQ(error_of({{"NCCL_BUFFSIZE", "4M"}}),
            "NCCL_BUFFSIZE: \"4M\": expected a buffer size in bytes from 65536 to 1073741824");
}

TEST(NcclEnvTest, P2pLevelStagesThePairsFartherThanIt) {
  // Two L40S under one PCIe 4.0 switch (PIX), the switch on the CPU by one more PCIe 4.0 x16 link:
  // every link the same payload rate C per direction.
  const topo::Topology t = testing::l40s_pcie_pair();
  const auto gpus = t.nodes_of(topo::NodeKind::gpu);
  const Communicator p2p(t, gpus);
  NcclEnvironment pix;
  pix.p2p_level = NcclPath::pix;  // PIX <= PIX: P2P stays
  const Communicator at_pix(t, gpus, {}, pix);
  NcclEnvironment off;
  off.p2p_level = NcclPath::loc;  // NCCL_P2P_DISABLE=1
  const Communicator staged(t, gpus, {}, off);
  EXPECT_EQ(p2p.route(0, 1).transport, topo::Transport::pcie_p2p);
  EXPECT_EQ(at_pix.route(0, 1).transport, topo::Transport::pcie_p2p);
  EXPECT_EQ(staged.route(0, 1).transport, topo::Transport::host_bounce);
  // The 2-rank ring sends 0->1 and 1->0. Through P2P each crosses gpu->sw and sw->gpu once: every
  // channel carries 1 byte per byte, busBw = C. Through SHM each goes gpu->sw->cpu->sw->gpu: the
  // switch's uplink carries both ranks' bytes in each direction, 2 per byte, busBw = C / 2.
  EXPECT_DOUBLE_EQ(staged.ring_bus_bandwidth_Bps(), p2p.ring_bus_bandwidth_Bps() / 2);
  EXPECT_DOUBLE_EQ(at_pix.ring_bus_bandwidth_Bps(), p2p.ring_bus_bandwidth_Bps());
}

TEST(NcclEnvTest, P2pDisabledOnNvlinkTakesThePciRow) {
  // DGX A100: every pair is NVLink through NVSwitch (NVL), NCCL's NVLINK row. With P2P at NVL
  // nothing changes; with NCCL_P2P_DISABLE=1 every pair is SHM and NCCL's class is PCI.
  const topo::Topology t = topo::load_topology("dgx-a100");
  const auto gpus = t.nodes_of(topo::NodeKind::gpu);
  NcclEnvironment nvl;
  nvl.p2p_level = NcclPath::nvl;
  EXPECT_EQ(Communicator(t, gpus, {}, nvl).intra_class(), HwClass::nvlink);
  NcclEnvironment off;
  off.p2p_level = NcclPath::loc;
  const Communicator staged(t, gpus, {}, off);
  EXPECT_EQ(staged.intra_class(), HwClass::pci);
  EXPECT_EQ(staged.route(0, 1).transport, topo::Transport::host_bounce);
}

TEST(NcclEnvTest, ShmDisabledWherePairsNeedItIsRefused) {
  const topo::Topology t = testing::l40s_pcie_pair();
  const auto gpus = t.nodes_of(topo::NodeKind::gpu);
  NcclEnvironment shm_off;
  shm_off.shm_disable = true;  // P2P still joins the pair: nothing changes
  EXPECT_EQ(Communicator(t, gpus, {}, shm_off).route(0, 1).transport, topo::Transport::pcie_p2p);
  shm_off.p2p_level = NcclPath::loc;  // neither P2P nor SHM: NCCL's NET transport, not modelled
  EXPECT_EQ(
      linksim::testing::thrown_message<InputError>([&] { Communicator c(t, gpus, {}, shm_off); }),
      "NCCL_SHM_DISABLE: gpu0 and gpu1 need SHM (no P2P between them at NCCL_P2P_LEVEL "
      "LOC); with SHM disabled NCCL connects them through the NET transport, which "
      "linksim does not model inside one host");
}

TEST(NcclEnvTest, NthreadsMovesNcclsChannelRule) {
  // enqueue.cc computeColl: nc drops from the communicator's channels (24 on a DGX A100) while
  // bytes < nc x nt x threshold; Ring/LL's threshold is 8 B x nRanks = 64 B per thread.
  // 64 KiB with nt = 512: 512 x 64 = 32 KiB per channel, 65536 < nc x 32768 for nc > 2 -> 2.
  // With NCCL_NTHREADS=64: 64 x 64 = 4 KiB per channel, 65536 < nc x 4096 for nc > 16 -> 16.
  const topo::Topology t = topo::load_topology("dgx-a100");
  const auto gpus = t.nodes_of(topo::NodeKind::gpu);
  const auto& ring = AlgorithmRegistry::builtin().get(Algorithm::ring);
  const Communicator plain(t, gpus);
  ASSERT_EQ(plain.max_channels(), 24);
  EXPECT_EQ(ring.channels(plain, Protocol::ll, 65536), 2);
  NcclEnvironment few;
  few.nthreads = 64;
  const Communicator thin(t, gpus, {}, few);
  EXPECT_EQ(ring.channels(thin, Protocol::ll, 65536), 16);
  // LL128 reads NCCL_LL128_NTHREADS, not NCCL_NTHREADS: 640 x 8 = 5 KiB per channel,
  // 65536 < nc x 5120 for nc > 12 -> 12 either way.
  EXPECT_EQ(ring.channels(plain, Protocol::ll128, 65536), 12);
  EXPECT_EQ(ring.channels(thin, Protocol::ll128, 65536), 12);
}

TEST(NcclEnvTest, BuffsizeSetsTheSimpleStep) {
  // init.cc computeBuffSizes: the Simple buffer is NCCL_STEPS (8) steps: 4 MiB / 8 = 512 KiB by
  // default, 8 MiB / 8 = 1 MiB with NCCL_BUFFSIZE=8388608.
  const topo::Topology t = testing::l40s_pcie_pair();
  const auto gpus = t.nodes_of(topo::NodeKind::gpu);
  EXPECT_EQ(Communicator(t, gpus).simple_step_bytes(), 524288.0);
  NcclEnvironment big;
  big.buffsize_bytes = 8388608;
  EXPECT_EQ(Communicator(t, gpus, {}, big).simple_step_bytes(), 1048576.0);
}

TEST(NcclEnvTest, AlgoAndProtoPerOperation) {
  // tuning.cc parseList: "ring,tree;allreduce:tree" is Tree for AllReduce, Ring and Tree for
  // every other function; an operation no entry names keeps everything (an empty list).
  const std::string text = "ring,tree;allreduce:tree";
  EXPECT_EQ(parse_nccl_algo(text, "NCCL_ALGO", Op::all_reduce),
            std::vector<Algorithm>{Algorithm::tree});
  EXPECT_EQ(parse_nccl_algo(text, "NCCL_ALGO", Op::broadcast),
            (std::vector<Algorithm>{Algorithm::ring, Algorithm::tree}));
  EXPECT_EQ(parse_nccl_algo("allgather:ring", "NCCL_ALGO", Op::all_reduce),
            std::vector<Algorithm>{});
  EXPECT_EQ(parse_nccl_proto("LL,Simple;AllReduce:^LL", "NCCL_PROTO", Op::all_reduce),
            (std::vector<Protocol>{Protocol::ll128, Protocol::simple}));
  EXPECT_EQ(parse_nccl_proto("LL,Simple;AllReduce:^LL", "NCCL_PROTO", Op::all_gather),
            (std::vector<Protocol>{Protocol::ll, Protocol::simple}));
  // Every entry is checked, whichever operation asks.
  const auto error = [](const std::string& t) {
    return linksim::testing::thrown_message<InputError>(
        [&] { parse_nccl_algo(t, "NCCL_ALGO", Op::all_reduce); });
  };
  EXPECT_EQ(error("allgather:bogus"),
            "NCCL_ALGO: unknown algorithm \"bogus\"; expected one of Ring, Tree, NVLS, P2P, PAT, "
            "NVLSTree, CollNetDirect, CollNetChain");
  EXPECT_EQ(error("alltoall:ring"),
            "NCCL_ALGO: \"alltoall:ring\": unknown operation \"alltoall\"; expected one of "
            "Broadcast, Reduce, AllGather, ReduceScatter, AllReduce");
  EXPECT_EQ(error("allreduce:ring;tree"),
            "NCCL_ALGO: \"allreduce:ring;tree\": every entry but the first must name an "
            "operation (op:list), as NCCL requires");
}

TEST(NcclEnvTest, AClusterFilesNcclEnvTakesTheSameVariables) {
  // Two hosts of two A100s joined by NVLink (NVL). The file's nccl_env NCCL_P2P_DISABLE=1 is
  // what a communicator built without an environment reads: the pair inside a host goes through
  // SHM; a caller's own environment (the user's, merged over the file's) replaces it.
  linksim::testing::TempDir dir;
  const std::string host = dir.write("h.json", linksim::testing::two_gpu_host_json());
  const auto load = [&](const std::string& fabric) {
    return topo::load_topology(
        dir.write("c.json", linksim::testing::cluster_json(host, 2, fabric)));
  };
  const topo::Topology c = load(R"({"nccl_env": {"NCCL_P2P_DISABLE": 1}})");
  EXPECT_EQ(c.cluster->fabric.nccl_env.variables.at("NCCL_P2P_DISABLE"), "1");
  const auto gpus = c.nodes_of(topo::NodeKind::gpu);
  EXPECT_EQ(Communicator(c, gpus).route(0, 1).transport, topo::Transport::host_bounce);
  EXPECT_EQ(Communicator(c, gpus, {}, NcclEnvironment{}).route(0, 1).transport,
            topo::Transport::nvlink);
  // NCCL_NET_GDR_LEVEL there replaces gpudirect_rdma's level.
  EXPECT_EQ(load(R"({"nccl_env": {"NCCL_NET_GDR_LEVEL": "PHB"}})").cluster->fabric.gpudirect_rdma,
            topo::GdrLevel::phb);
  EXPECT_EQ(linksim::testing::thrown_message<InputError>(
                [&] { load(R"({"nccl_env": {"NCCL_P2P_LEVEL": "FOO"}})"); }),
            dir.path() +
                "/c.json: at /cluster/fabric/nccl_env/NCCL_P2P_LEVEL: \"FOO\" is not a path level; "
                "expected LOC, NVL, NVB, C2C, PIX, PXB, P2C, PXN, PHB, SYS, or an integer from 0 "
                "(LOC, PIX, PXB, PHB, SYS, SYS)");
}

}  // namespace
}  // namespace linksim::coll
