#include "sim/core/nccl_version.hpp"

#include <gtest/gtest.h>

#include <string>

#include "tests/support/thrown_message.hpp"

namespace linksim {
namespace {

std::string refusal(const std::string& text) {
  return testing::thrown_message<NcclVersionError>([&] { parse_nccl_version(text); });
}

TEST(NcclVersionTest, ReleasesAndCodes) {
  // NCCL_VERSION_CODE = major x 10000 + minor x 100 + patch: 2.18.5 -> 21805.
  EXPECT_EQ(parse_nccl_version("2.18.5"), 21805);
  EXPECT_EQ(parse_nccl_version("2.27.7-1"), 22707);
  EXPECT_EQ(parse_nccl_version("21805"), 21805);
  EXPECT_EQ(parse_nccl_version("2.9.0"), 20900);
  EXPECT_EQ(nccl_version_text(21805), "2.18.5");
  EXPECT_EQ(nccl_version_text(kModelledNcclVersion), "2.30.7");
}

TEST(NcclVersionTest, AnythingElseIsRefusedWithTheForm) {
  const std::string form =
      " is not an NCCL release; expected MAJOR.MINOR.PATCH such as 2.18.5, or its "
      "NCCL_VERSION_CODE such as 21805, from 2.9.0 on";
  EXPECT_EQ(refusal("2.18"), "\"2.18\"" + form);
  EXPECT_EQ(refusal("2.8.4"), "\"2.8.4\"" + form);
  EXPECT_EQ(refusal("3.0.0"), "\"3.0.0\"" + form);
  EXPECT_EQ(refusal("2.18.x"), "\"2.18.x\"" + form);
  EXPECT_EQ(refusal("2.18.5-"), "\"2.18.5-\"" + form);
  EXPECT_EQ(refusal(""), "\"\"" + form);
  EXPECT_EQ(refusal("1234567"), "\"1234567\"" + form);
}

}  // namespace
}  // namespace linksim
