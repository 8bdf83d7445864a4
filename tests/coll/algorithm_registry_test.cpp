// The algorithm registry: names, order, lookup and its errors; each plug-in's operations,
// eligibility (with its reason) and constants; and the name lists that cannot read the registry
// (scenarios/schema.json, docs) checked against it.
#include "sim/coll/algorithm_registry.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <regex>
#include <sstream>

#include "sim/core/json_view.hpp"
#include "tests/coll/test_machines.hpp"
#include "tests/support/temp_files.hpp"

namespace linksim::coll {
namespace {

const AlgorithmRegistry& registry() {
  return AlgorithmRegistry::builtin();
}
const CollectiveAlgorithm& ring() {
  return registry().get(Algorithm::ring);
}
const CollectiveAlgorithm& tree() {
  return registry().get(Algorithm::tree);
}
const CollectiveAlgorithm& nvls() {
  return registry().get(Algorithm::nvls);
}
const CollectiveAlgorithm& p2p() {
  return registry().get(Algorithm::pairwise);
}

std::vector<topo::NodeId> gpus(const topo::Topology& t) {
  return t.nodes_of(topo::NodeKind::gpu);
}

// A plug-in that only has a name, for the registry's own rules.
class NamedOnly final : public CollectiveAlgorithm {
 public:
  explicit NamedOnly(std::string_view name) : name_(name) {}
  std::string_view name() const override { return name_; }
  std::vector<Op> operations() const override { return {}; }
  std::optional<std::string> why_ineligible(const Communicator&) const override { return {}; }
  int channels(const Communicator&, Protocol, double) const override { return 1; }
  double base_latency_s(Protocol) const override { return 0; }
  double hop_latency_s(Protocol, HwClass) const override { return 0; }
  engine::TaskId lower(Lowering&, engine::TaskId start) const override { return start; }

 private:
  std::string_view name_;
};

TEST(AlgorithmRegistryTest, NamesInStableOrder) {
  // The order the planner tries candidates in (a tie goes to the first) and lists names in.
  EXPECT_EQ(registry().names(),
            (std::vector<std::string>{"Ring", "Tree", "NVLS", "P2P", "PAT", "NVLSTree",
                                      "CollNetDirect", "CollNetChain"}));
  const auto& all = registry().algorithms();
  ASSERT_EQ(all.size(), 8u);
  EXPECT_EQ(all[0]->id(), Algorithm::ring);
  EXPECT_EQ(all[1]->id(), Algorithm::tree);
  EXPECT_EQ(all[2]->id(), Algorithm::nvls);
  EXPECT_EQ(all[3]->id(), Algorithm::pairwise);
  EXPECT_EQ(to_string(Algorithm::pairwise), "P2P");
}

TEST(AlgorithmRegistryTest, FindIgnoresCaseAndKnowsAliases) {
  EXPECT_EQ(registry().find("Ring"), Algorithm::ring);
  EXPECT_EQ(registry().find("RING"), Algorithm::ring);
  EXPECT_EQ(registry().find("tree"), Algorithm::tree);
  EXPECT_EQ(registry().find("nvls"), Algorithm::nvls);
  EXPECT_EQ(registry().find("p2p"), Algorithm::pairwise);
  EXPECT_EQ(registry().find("Pairwise"), Algorithm::pairwise);
  EXPECT_EQ(registry().find("pat")->name(), "PAT");
  EXPECT_EQ(registry().find("NVLSTREE")->name(), "NVLSTree");
  EXPECT_EQ(registry().find("collnetdirect")->name(), "CollNetDirect");
  EXPECT_EQ(registry().find("COLLNETCHAIN")->name(), "CollNetChain");
  // NCCL 2.30's NCCL_ALGO matches whole names only (tuning.cc parseList, strcasecmp): the
  // older "CollNet" for both is not a name here either.
  EXPECT_FALSE(registry().find("CollNet"));
  EXPECT_FALSE(registry().find("CollNet").has_value());
  EXPECT_FALSE(registry().find("").has_value());
  EXPECT_FALSE(registry().find("rin").has_value());
  EXPECT_EQ(algorithm_from_string("TREE"), Algorithm::tree);
}

TEST(AlgorithmRegistryTest, UnknownNameMessageListsTheValidOnes) {
  EXPECT_EQ(registry().unknown_name_message("Bogus"),
            "unknown algorithm \"Bogus\"; expected one of Ring, Tree, NVLS, P2P, PAT, NVLSTree, "
            "CollNetDirect, CollNetChain");
}

TEST(AlgorithmRegistryTest, RefusesANameTwiceAndUnregisteredAlgorithms) {
  const NamedOnly ring_again("RING");
  try {
    AlgorithmRegistry twice({&ring(), &ring_again});
    FAIL() << "a duplicate name was accepted";
  } catch (const std::logic_error& e) {
    EXPECT_STREQ(e.what(), "algorithm name \"RING\" is registered twice (Ring and RING)");
  }
  const NamedOnly alias_clash("PAIRWISE");
  EXPECT_THROW(AlgorithmRegistry({&p2p(), &alias_clash}), std::logic_error);
  const NamedOnly stranger("Stranger");
  const AlgorithmRegistry own({&stranger});
  EXPECT_EQ(&own.get(stranger.id()), &stranger);
  EXPECT_THROW(registry().get(stranger.id()), std::logic_error);
}

TEST(AlgorithmRegistryTest, OperationsServed) {
  EXPECT_EQ(ring().operations(), (std::vector<Op>{Op::all_reduce, Op::all_gather,
                                                  Op::reduce_scatter, Op::broadcast, Op::reduce}));
  EXPECT_EQ(tree().operations(), std::vector<Op>{Op::all_reduce});
  EXPECT_EQ(nvls().operations(), std::vector<Op>{Op::all_reduce});
  EXPECT_EQ(p2p().operations(), (std::vector<Op>{Op::alltoall, Op::sendrecv, Op::scatter,
                                                 Op::gather, Op::alltoallv, Op::hypercube}));
  EXPECT_TRUE(ring().serves(Op::broadcast));
  EXPECT_FALSE(ring().serves(Op::alltoall));
  // Every operation has an algorithm.
  for (const auto& name : op_names()) {
    const Op op = *op_from_string(name);
    EXPECT_TRUE(std::any_of(registry().algorithms().begin(), registry().algorithms().end(),
                            [op](const CollectiveAlgorithm* a) { return a->serves(op); }))
        << name;
  }
}

TEST(AlgorithmRegistryTest, RingTreeAndP2pRunOnAnyMachine) {
  for (const topo::Topology& t :
       {testing::a100_nvlink_pair(), testing::l40s_pcie_pair(), testing::h100_direct_pair()}) {
    const Communicator comm(t, gpus(t));
    EXPECT_EQ(ring().why_ineligible(comm), std::nullopt) << t.name;
    EXPECT_EQ(tree().why_ineligible(comm), std::nullopt) << t.name;
    EXPECT_EQ(p2p().why_ineligible(comm), std::nullopt) << t.name;
  }
}

TEST(AlgorithmRegistryTest, NvlsNeedsAnNvswitchWithNvlink4) {
  const std::string rule =
      "NVLS needs an NVSwitch with NVLink 4 or later (Hopper or newer) between every pair of "
      "GPUs; here: ";
  const topo::Topology h100 = testing::nvswitch_pair("H100-SXM5-80GB", 4, 18);
  const Communicator h100_comm(h100, gpus(h100));
  EXPECT_EQ(nvls().why_ineligible(h100_comm), std::nullopt);
  EXPECT_TRUE(h100_comm.nvls_capable());

  const topo::Topology a100 = testing::nvswitch_pair("A100-SXM4-80GB", 3, 12);
  const Communicator a100_comm(a100, gpus(a100));
  EXPECT_EQ(nvls().why_ineligible(a100_comm), rule + "NVLink 3, ampere GPUs have no NVLink SHARP");
  EXPECT_FALSE(a100_comm.nvls_capable());

  const topo::Topology direct = testing::h100_direct_pair();
  const Communicator direct_comm(direct, gpus(direct));
  EXPECT_EQ(nvls().why_ineligible(direct_comm), rule + "no NVSwitch");

  const topo::Topology pcie = testing::l40s_pcie_pair();
  const Communicator pcie_comm(pcie, gpus(pcie));
  EXPECT_EQ(nvls().why_ineligible(pcie_comm),
            rule +
                "not every pair of GPUs is joined directly by NVLink, no NVSwitch, no NVLink, ada "
                "GPUs have no NVLink SHARP");

  const Communicator single(h100, {gpus(h100).front()});
  EXPECT_EQ(nvls().why_ineligible(single), rule + "a single GPU");
}

// Latency constants, checked against ../shared/reference/nccl-model.md §2 (tuning.cc): its
// worked example is one node of 8 GPUs on NVLink, all-reduce, nsteps = 2(n-1) = 14.
TEST(AlgorithmRegistryTest, LatenciesReproduceNcclModelWorkedExample) {
  const auto latency_us = [](const CollectiveAlgorithm& a, Protocol p, double hops) {
    return (a.base_latency_s(p) + hops * a.hop_latency_s(p, HwClass::nvlink)) * 1e6;
  };
  // Ring: base + 14 x hop: LL 6.6 + 14 x 0.6 = 15.0; LL128 14 + 14 x 1.9 = 40.6; Simple
  // 8.4 + 14 x 3.4 = 56.0 us.
  EXPECT_NEAR(latency_us(ring(), Protocol::ll, 14), 15.0, 1e-9);
  EXPECT_NEAR(latency_us(ring(), Protocol::ll128, 14), 40.6, 1e-9);
  EXPECT_NEAR(latency_us(ring(), Protocol::simple, 14), 56.0, 1e-9);
  // Tree: base + 2 x (ppn - 1) x hop = base + 14 x hop: LL 6.8 + 14 x 0.6 = 15.2; LL128
  // 14 + 14 x 1.25 = 31.5; Simple 8.4 + 14 x 4.0 = 64.4 us.
  EXPECT_NEAR(latency_us(tree(), Protocol::ll, 14), 15.2, 1e-9);
  EXPECT_NEAR(latency_us(tree(), Protocol::ll128, 14), 31.5, 1e-9);
  EXPECT_NEAR(latency_us(tree(), Protocol::simple, 14), 64.4, 1e-9);
  // NVLS: the NVLink hop replaces the base: 25 us.
  EXPECT_NEAR(latency_us(nvls(), Protocol::simple, 1), 25.0, 1e-9);
}

// The PCI and NET rows of hwLatencies, straight from nccl-model.md §2 (µs).
TEST(AlgorithmRegistryTest, HopLatenciesByHardwareClass) {
  EXPECT_NEAR(ring().hop_latency_s(Protocol::ll, HwClass::pci), 1.0e-6, 1e-15);
  EXPECT_NEAR(ring().hop_latency_s(Protocol::ll128, HwClass::pci), 2.5e-6, 1e-15);
  EXPECT_NEAR(ring().hop_latency_s(Protocol::simple, HwClass::pci), 5.7e-6, 1e-15);
  EXPECT_NEAR(ring().hop_latency_s(Protocol::simple, HwClass::net), 14.0e-6, 1e-15);
  EXPECT_NEAR(tree().hop_latency_s(Protocol::ll128, HwClass::pci), 1.9e-6, 1e-15);
  EXPECT_NEAR(tree().hop_latency_s(Protocol::ll, HwClass::net), 5.0e-6, 1e-15);
  EXPECT_NEAR(nvls().hop_latency_s(Protocol::simple, HwClass::net), 18e-6, 1e-15);
  // Not from NCCL (it has no p2p row): linksim prices a p2p step as a ring step.
  for (Protocol p : {Protocol::ll, Protocol::ll128, Protocol::simple}) {
    EXPECT_EQ(p2p().base_latency_s(p), ring().base_latency_s(p));
    for (HwClass c : {HwClass::nvlink, HwClass::pci, HwClass::net})
      EXPECT_EQ(p2p().hop_latency_s(p, c), ring().hop_latency_s(p, c));
  }
  // The shorthand the job simulation uses is the plug-in's figure.
  EXPECT_EQ(hop_latency_s(Algorithm::tree, Protocol::ll, HwClass::pci),
            tree().hop_latency_s(Protocol::ll, HwClass::pci));
}

// Bandwidth constants on one Hopper node, from nccl-model.md §2's cap table (GB/s): llMaxBws
// 141 (all channels), perChMaxRingLL128Bw 36.7, perChMaxTreeBw 38.7, nvlsEfficiency 0.85.
TEST(AlgorithmRegistryTest, BandwidthCapsOnHopper) {
  const topo::Topology h100 = testing::nvswitch_pair("H100-SXM5-80GB", 4, 18);
  const Communicator comm(h100, gpus(h100));
  ASSERT_EQ(comm.generation(), GpuGeneration::hopper);
  // 4 channels: LL 141 whatever the channels; LL128 4 x 36.7 = 146.8; Tree Simple 4 x 38.7 =
  // 154.8; Ring Simple uncapped (0).
  EXPECT_NEAR(ring().rank_cap_Bps(comm, Protocol::ll, 4), 141e9, 1e-3);
  EXPECT_NEAR(ring().rank_cap_Bps(comm, Protocol::ll128, 4), 146.8e9, 1e-3);
  EXPECT_EQ(ring().rank_cap_Bps(comm, Protocol::simple, 4), 0.0);
  EXPECT_NEAR(tree().rank_cap_Bps(comm, Protocol::simple, 4), 154.8e9, 1e-3);
  EXPECT_NEAR(tree().rank_cap_Bps(comm, Protocol::ll128, 4), 146.8e9, 1e-3);
  EXPECT_EQ(p2p().rank_cap_Bps(comm, Protocol::simple, 2), 0.0);
  EXPECT_DOUBLE_EQ(nvls().bandwidth_efficiency(comm), 0.85);
  EXPECT_DOUBLE_EQ(ring().bandwidth_efficiency(comm), 1.0);
  // Ampere: 0, no NVLink SHARP; Tree Simple 24 GB/s per channel, so 2 x 24 = 48.
  const topo::Topology a100 = testing::a100_nvlink_pair();
  const Communicator a100_comm(a100, gpus(a100));
  EXPECT_DOUBLE_EQ(nvls().bandwidth_efficiency(a100_comm), 0.0);
  EXPECT_NEAR(tree().rank_cap_Bps(a100_comm, Protocol::simple, 2), 48e9, 1e-3);
}

// scenarios/schema.json cannot read the registry: its enum must equal the registry's names.
TEST(AlgorithmNamesTest, ScenarioSchemaEnumIsTheRegistry) {
  const Json schema = read_json_file(linksim::testing::source_dir() + "/scenarios/schema.json");
  const Json& algorithm = schema.at("properties").at("overrides").at("properties").at("algorithm");
  EXPECT_EQ(algorithm.at("enum").get<std::vector<std::string>>(), registry().names());
}

bool names_word(const std::string& line, const std::string& name) {
  const std::regex word("\\b" + name + "\\b", std::regex::icase);
  return std::regex_search(line, word);
}

// Docs that list the algorithms, each at the line that lists them: every registered name must
// be there (ignoring case), so a new algorithm cannot be left out of them.
TEST(AlgorithmNamesTest, DocsNameEveryAlgorithm) {
  const std::vector<std::pair<std::string, std::string>> lists{
      {"docs/scenario-format.md", "| `overrides.algorithm`"},
      {"docs/adding-an-algorithm.md", "Registered algorithms, in order:"},
      {"README.md", "| `sim/coll` |"},
  };
  for (const auto& [file, anchor] : lists) {
    std::istringstream text(
        linksim::testing::read_file(linksim::testing::source_dir() + "/" + file));
    std::string line;
    bool found = false;
    while (std::getline(text, line)) {
      if (line.find(anchor) == std::string::npos) continue;
      found = true;
      for (const auto& name : registry().names())
        EXPECT_TRUE(names_word(line, name)) << file << " does not name " << name << ": " << line;
    }
    EXPECT_TRUE(found) << file << " has no line with \"" << anchor << "\"";
  }
}

}  // namespace
}  // namespace linksim::coll
