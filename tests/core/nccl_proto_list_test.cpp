// NCCL_PROTO's one reader (sim/core/nccl_proto_list.hpp), shared by the command line and cluster
// files: what each list allows as [LL, LL128, Simple], and why a bad one is refused.
#include "sim/core/nccl_proto_list.hpp"

#include <gtest/gtest.h>

#include <string>

#include "tests/support/thrown_message.hpp"

namespace linksim {
namespace {

std::string refusal(std::string_view text) {
  return testing::thrown_message<NcclListError>([&] { parse_nccl_protocol_list(text); });
}

TEST(NcclProtoListTest, ListsAllowWhatTheyNameOrAllButThat) {
  EXPECT_EQ(parse_nccl_protocol_list("Simple"), (NcclProtocolMask{false, false, true}));
  // Any case, as NCCL's parseList compares with strcasecmp.
  EXPECT_EQ(parse_nccl_protocol_list("ll128,SIMPLE"), (NcclProtocolMask{false, true, true}));
  EXPECT_EQ(parse_nccl_protocol_list("^LL"), (NcclProtocolMask{false, true, true}));
  EXPECT_EQ(parse_nccl_protocol_list("^LL128"), (NcclProtocolMask{true, false, true}));
  // Spaces around a name and empty entries are ignored; a name given twice counts once.
  EXPECT_EQ(parse_nccl_protocol_list(" LL , Simple,,LL"), (NcclProtocolMask{true, false, true}));
}

TEST(NcclProtoListTest, BadListsSayWhy) {
  EXPECT_EQ(refusal("LL,Fast"),
            "unknown protocol \"Fast\" in \"LL,Fast\"; expected a list of LL, LL128 and Simple, "
            "or ^list for all but those");
  EXPECT_EQ(refusal("^LL,LL128,Simple"), "\"^LL,LL128,Simple\" allows no protocol");
  EXPECT_EQ(refusal(" , "), "\" , \": names no protocol");
  EXPECT_EQ(refusal("^"), "\"^\": names no protocol");
  EXPECT_EQ(refusal("allreduce:LL;broadcast:Simple"),
            "\"allreduce:LL;broadcast:Simple\": per-operation lists (op:list;...) are not "
            "modelled; give one list for every operation");
}

TEST(NcclProtoListTest, NamesReadInAnyCaseAndWriteInNcclsSpelling) {
  EXPECT_EQ(nccl_protocol_index("ll"), 0u);
  EXPECT_EQ(nccl_protocol_index("LL128"), 1u);
  EXPECT_EQ(nccl_protocol_index("SIMPLE"), 2u);
  EXPECT_EQ(nccl_protocol_index("LL64"), std::nullopt);
  EXPECT_EQ(nccl_protocol_list_text({true, false, true}), "LL,Simple");
  EXPECT_EQ(nccl_protocol_list_text(parse_nccl_protocol_list("simple, ll128")), "LL128,Simple");
}

}  // namespace
}  // namespace linksim
