// The tests' reader of NCCL's example tuner plugin file (tests/support/nccl_tuner_conf_parser.hpp)
// against lines written by hand from the plugin's README: what it accepts, what the plugin would
// misread, and the plugin's first-match lookup.
#include "tests/support/nccl_tuner_conf_parser.hpp"

#include <gtest/gtest.h>

#include <string>

namespace linksim::testing {
namespace {

TEST(TunerConfParser, ReadsTheReadmesFormsWithOptionalFields) {
  const TunerConfParse p = parse_tuner_conf(
      "# a comment\n"
      "\n"
      "allreduce,0,65536,tree,simple,2,1,-1,-1,1\n"
      "broadcast, 32769 ,4294967295,ring,ll128,-1,-1,-1\n"
      "reducescatter,131073,4294967295,nvls_tree,ll,-1,4,32,2\n");
  ASSERT_TRUE(p.errors.empty()) << p.errors.front();
  ASSERT_EQ(p.entries.size(), 3u);
  EXPECT_EQ(p.entries[0].collective, "allreduce");
  EXPECT_EQ(p.entries[0].max_bytes, 65536u);
  EXPECT_EQ(p.entries[0].channels, 2);
  EXPECT_EQ(p.entries[0].reg_buff, 1);
  EXPECT_EQ(p.entries[0].line, 3);
  EXPECT_EQ(p.entries[1].min_bytes, 32769u);  // spaces trimmed, as the plugin trims them
  EXPECT_EQ(p.entries[1].pipe_ops, -1);       // 8 fields: any pipeOps and regBuff
  EXPECT_EQ(p.entries[1].reg_buff, -1);
  EXPECT_EQ(p.entries[2].pipe_ops, 2);  // 9 fields: any regBuff
  EXPECT_EQ(p.entries[2].reg_buff, -1);
  EXPECT_EQ(p.entries[2].nodes, 4);
  EXPECT_EQ(p.entries[2].ranks, 32);
}

TEST(TunerConfParser, RefusesWhatThePluginWouldMisread) {
  const std::string long_comment = "#" + std::string(254, 'x');  // 255 characters: cut by fgets
  const TunerConfParse p = parse_tuner_conf(
      " # not a comment: it does not start in column 0\n"
      "allreduce,0,1,Ring,simple,1,1,8,-1,-1\n"      // upper case
      "all_reduce,0,1,ring,simple,1,1,8,-1,-1\n"     // nccl-tests' name
      "allreduce,0,1,ring,LL128,1,1,8,-1,-1\n"       // upper-case protocol
      "allreduce,0,1,ring,simple,1,1\n"              // 7 fields
      "allreduce,0,1,ring,simple,1,1,8,-1,-1,7\n"    // 11 fields
      "allreduce,,1,ring,simple,1,1,8,-1,-1\n"       // empty field
      "allreduce,9,8,ring,simple,1,1,8,-1,-1\n"      // min above max
      "allreduce,0,1k,ring,simple,1,1,8,-1,-1\n"     // not a number
      "allreduce,0,1,ring,simple,0,1,8,-1,-1\n"      // 0 channels
      "allreduce,0,1,ring,simple,1,1,8,-1,2\n"       // regBuff 2
      "allreduce,0,1,ring,simple,1,1,8,-1,-1\r\n" +  // CRLF
      long_comment +
      "\n");
  ASSERT_EQ(p.errors.size(), 13u);
  EXPECT_EQ(p.errors[0].rfind("line 1: ", 0), 0u) << p.errors[0];
  EXPECT_EQ(p.errors[1], "line 2: unknown algorithm \"Ring\"");
  EXPECT_EQ(p.errors[2], "line 3: unknown collective \"all_reduce\"");
  EXPECT_EQ(p.errors[3], "line 4: unknown protocol \"LL128\"");
  EXPECT_EQ(p.errors[4], "line 5: expected 8 to 10 fields, got 7");
  EXPECT_EQ(p.errors[5], "line 6: expected 8 to 10 fields, got 11");
  EXPECT_EQ(p.errors[6], "line 7: an empty field (strtok would drop it and shift the rest)");
  EXPECT_EQ(p.errors[7], "line 8: min_bytes above max_bytes");
  EXPECT_EQ(p.errors[8], "line 9: max_bytes is not a number of bytes");
  EXPECT_EQ(p.errors[9], "line 10: channels: expected -1 or a count");
  EXPECT_EQ(p.errors[10], "line 11: regBuff: expected -1, 0 or 1");
  EXPECT_EQ(p.errors[11], "line 12: carriage return");
  EXPECT_EQ(p.errors[12], "line 13: longer than fgets reads into the plugin's 256-byte buffer");
}

TEST(TunerConfParser, AComment254CharactersLongStillFits) {
  const TunerConfParse p = parse_tuner_conf("#" + std::string(253, 'x') + "\n");
  EXPECT_TRUE(p.errors.empty());
  EXPECT_TRUE(p.entries.empty());
}

TEST(TunerConfParser, TheFirstMatchingEntryWinsAsInThePlugin) {
  const TunerConfParse p = parse_tuner_conf(
      "allreduce,0,1023,tree,ll,4,2,16,-1,-1\n"
      "allreduce,512,4095,ring,ll128,8,-1,-1,-1,-1\n"
      "allgather,0,4095,pat,simple,2,2,-1,-1,0\n");
  ASSERT_TRUE(p.errors.empty());
  const auto* a = tuner_conf_match(p.entries, "allreduce", 600, 2, 16);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->algorithm, "tree");  // both match 600 B; the first wins
  const auto* b = tuner_conf_match(p.entries, "allreduce", 600, 4, 32);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->algorithm, "ring");  // the first is for 2 nodes and 16 ranks only
  EXPECT_EQ(tuner_conf_match(p.entries, "allreduce", 4096, 2, 16), nullptr);     // max inclusive
  EXPECT_EQ(tuner_conf_match(p.entries, "allgather", 8, 2, 16, 1, 1), nullptr);  // regBuff 0
  EXPECT_NE(tuner_conf_match(p.entries, "allgather", 8, 2, 16, 1, 0), nullptr);
}

}  // namespace
}  // namespace linksim::testing
