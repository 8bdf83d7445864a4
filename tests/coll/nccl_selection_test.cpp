#include "sim/coll/nccl_selection.hpp"

#include <gtest/gtest.h>

#include "sim/coll/algorithm_registry.hpp"
#include "sim/core/error.hpp"
#include "tests/support/thrown_message.hpp"

namespace linksim::coll {
namespace {

std::string error_of(auto&& f) {
  return testing::thrown_message<InputError>(f);
}

TEST(NcclSelectionTest, ListsAndExclusionsAsNcclReadsThem) {
  // Registry order is Ring, Tree, NVLS, P2P, PAT, NVLSTree, CollNetDirect, CollNetChain; names
  // ignore case and spaces
  // around commas. "^NVLS" leaves NVLSTree in, as NCCL's list does (another name).
  const Algorithm pat = *AlgorithmRegistry::builtin().find("PAT");
  const Algorithm nvls_tree = *AlgorithmRegistry::builtin().find("NVLSTree");
  const Algorithm collnet_direct = *AlgorithmRegistry::builtin().find("CollNetDirect");
  const Algorithm collnet_chain = *AlgorithmRegistry::builtin().find("CollNetChain");
  EXPECT_EQ(parse_nccl_algo("ring", "NCCL_ALGO"), (std::vector<Algorithm>{Algorithm::ring}));
  EXPECT_EQ(parse_nccl_algo("Tree, RING", "NCCL_ALGO"),
            (std::vector<Algorithm>{Algorithm::ring, Algorithm::tree}));
  EXPECT_EQ(parse_nccl_algo("^NVLS", "NCCL_ALGO"),
            (std::vector<Algorithm>{Algorithm::ring, Algorithm::tree, Algorithm::pairwise, pat,
                                    nvls_tree, collnet_direct, collnet_chain}));
  EXPECT_EQ(parse_nccl_proto("^LL", "NCCL_PROTO"),
            (std::vector<Protocol>{Protocol::ll128, Protocol::simple}));
  EXPECT_EQ(parse_nccl_proto("simple", "NCCL_PROTO"), (std::vector<Protocol>{Protocol::simple}));
  // NCCL_NVLS_ENABLE=0 takes out NVLS and NVLSTree both.
  EXPECT_EQ(without_nvls({}),
            (std::vector<Algorithm>{Algorithm::ring, Algorithm::tree, Algorithm::pairwise, pat,
                                    collnet_direct, collnet_chain}));
  EXPECT_EQ(without_nvls({Algorithm::nvls, Algorithm::tree}),
            (std::vector<Algorithm>{Algorithm::tree}));
}

TEST(NcclSelectionTest, BadListsAreNamed) {
  EXPECT_EQ(error_of([] { parse_nccl_algo("Ring,Bogus", "NCCL_ALGO"); }),
            "NCCL_ALGO: unknown algorithm \"Bogus\"; expected one of Ring, Tree, NVLS, P2P, PAT, "
            "NVLSTree, CollNetDirect, CollNetChain");
  EXPECT_EQ(error_of([] {
              parse_nccl_algo("^Ring,Tree,NVLS,P2P,PAT,NVLSTree,CollNetDirect,CollNetChain",
                              "NCCL_ALGO");
            }),
            "NCCL_ALGO: \"^Ring,Tree,NVLS,P2P,PAT,NVLSTree,CollNetDirect,CollNetChain\" allows no "
            "algorithm");
  EXPECT_EQ(error_of([] { parse_nccl_algo(",", "NCCL_ALGO"); }),
            "NCCL_ALGO: \",\": names no entry");
  EXPECT_EQ(error_of([] { parse_nccl_algo("allreduce:tree;broadcast:ring", "NCCL_ALGO"); }),
            "NCCL_ALGO: \"allreduce:tree;broadcast:ring\": per-operation lists (op:list;...) are "
            "not modelled; give one list for every operation");
  EXPECT_EQ(error_of([] { parse_nccl_proto("LL256", "NCCL_PROTO"); }),
            "NCCL_PROTO: unknown protocol \"LL256\" in \"LL256\"; expected a list of LL, LL128 and "
            "Simple, or ^list for all but those");
}

}  // namespace
}  // namespace linksim::coll
