// The tuner plugin file's writer (sim/report/nccl_tuner_config_format.hpp): exact text, the
// plugin's names, comments kept to lines the plugin reads whole, and read back by the tests'
// own parser of the plugin's format.
#include "sim/report/nccl_tuner_config_format.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "tests/support/nccl_tuner_conf_parser.hpp"

namespace linksim::report {
namespace {

TEST(NcclTunerConfigFormat, WritesTheHeaderTheFormatLineAndEachRowWithItsComment) {
  NcclTunerConfigLine a;
  a.op = coll::Op::reduce_scatter;
  a.min_bytes = 65536;
  a.max_bytes = 262143;
  a.algorithm = coll::Algorithm::tree;
  a.protocol = coll::Protocol::ll128;
  a.channels = 12;
  a.nodes = 2;
  a.ranks = 16;
  a.comments = {"why"};
  NcclTunerConfigLine b = a;
  b.op = coll::Op::all_reduce;
  b.algorithm = coll::Algorithm::nvls;
  b.protocol = coll::Protocol::simple;
  b.comments = {};
  EXPECT_EQ(format_nccl_tuner_config({"first", ""}, {a, b}),
            "# first\n"
            "#\n"
            "# Format: collective_type,min_bytes,max_bytes,algorithm,protocol,channels,nNodes,"
            "nRanks,numPipeOps,regBuff\n"
            "\n"
            "# why\n"
            "reducescatter,65536,262143,tree,ll128,12,2,16,-1,-1\n"
            "\n"
            "allreduce,65536,262143,nvls,simple,12,2,16,-1,-1\n");
}

TEST(NcclTunerConfigFormat, NamesAreThePluginsLowerCaseOnes) {
  EXPECT_EQ(nccl_tuner_collective_name(coll::Op::all_gather), "allgather");
  EXPECT_EQ(nccl_tuner_collective_name(coll::Op::broadcast), "broadcast");
  EXPECT_EQ(nccl_tuner_collective_name(coll::Op::alltoall), std::nullopt);
  EXPECT_EQ(nccl_tuner_algorithm_name(coll::Algorithm::ring), "ring");
  EXPECT_EQ(nccl_tuner_algorithm_name(coll::Algorithm::pairwise), std::nullopt);
  EXPECT_EQ(nccl_tuner_protocol_name(coll::Protocol::ll), "ll");
  EXPECT_EQ(nccl_tuner_protocol_name(coll::Protocol::simple), "simple");
  NcclTunerConfigLine p2p;
  p2p.algorithm = coll::Algorithm::pairwise;
  EXPECT_THROW(nccl_tuner_config_row(p2p), std::invalid_argument);
}

TEST(NcclTunerConfigFormat, ALongCommentWrapsOntoLinesThePluginReadsWhole) {
  std::string words;
  for (int i = 0; i < 120; ++i)
    words += "word" + std::to_string(i) + " ";
  const std::string text = format_nccl_tuner_config({words}, {});
  std::size_t lines = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    ASSERT_NE(end, std::string::npos);
    EXPECT_LE(end - start, kNcclTunerMaxLineChars);
    EXPECT_EQ(text[start], '#');
    start = end + 1;
    ++lines;
  }
  EXPECT_EQ(lines, 5u);  // 850 characters on 4 lines of at most 252 after "# ", then the format
  const testing::TunerConfParse parsed = testing::parse_tuner_conf(text);
  EXPECT_TRUE(parsed.errors.empty());
  EXPECT_TRUE(parsed.entries.empty());
  EXPECT_THROW(format_nccl_tuner_config({std::string(300, 'x')}, {}), std::invalid_argument);
}

}  // namespace
}  // namespace linksim::report
