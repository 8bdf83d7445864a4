// `linksim run-graph PREFIX --topology T` on a Chakra trace set (sim/work/chakra_trace.hpp):
// ASTRA-sim's all-reduce example runs by prefix, by folder and by one rank's file; a bad set
// is one error line naming the file and where, exit code 2, nothing on stdout.
#include <gtest/gtest.h>

#include <string>

#include "tests/support/temp_files.hpp"

namespace linksim::testing {
namespace {

std::string example() {
  return source_dir() + "/tests/data/chakra/all_reduce_8npus_1MB";
}

TEST(ChakraCli, RunsAstraSimsAllReduceByPrefixFolderOrFile) {
  const CommandResult by_prefix =
      run_linksim("run-graph " + shell_quote(example() + "/all_reduce") +
                  " -t dgx-h100 --rates payload --format json");
  ASSERT_EQ(by_prefix.exit_code, 0) << by_prefix.err;
  EXPECT_NE(by_prefix.out.find("world.coll0"), std::string::npos);
  const CommandResult by_folder = run_linksim("run-graph " + shell_quote(example()) +
                                              " -t dgx-h100 --rates payload --format json");
  EXPECT_EQ(by_folder.out, by_prefix.out);
  const CommandResult by_file =
      run_linksim("run-graph " + shell_quote(example() + "/all_reduce.5.et") +
                  " -t dgx-h100 --rates payload --format json");
  EXPECT_EQ(by_file.out, by_prefix.out);
}

TEST(ChakraCli, BadTracesAreOneErrorLineAndExitTwo) {
  const TempDir dir;
  const std::string whole = read_file(example() + "/all_reduce.0.et");
  dir.write("cut.0.et", whole.substr(0, whole.size() - 5));
  dir.write("text.0.et", "not a trace at all\n");
  // 'n' (0x6e): a first message of 110 bytes, 18 following. The cut file: its 81 bytes are a
  // 1-byte length, a 7-byte GlobalMetadata, a 1-byte length and a 72-byte node at byte 8; 5
  // fewer leave 67 of its 72.
  const struct {
    std::string prefix;
    std::string error;
  } cases[] = {
      {dir.path() + "/text", dir.path() +
                                 "/text.0.et: at byte 0: not a Chakra execution trace: its first "
                                 "message claims 110 bytes and 18 follow\n"},
      {dir.path() + "/cut",
       dir.path() +
           "/cut.0.et: at byte 8: truncated: a message of 72 bytes, 67 left in the file\n"},
  };
  for (const auto& c : cases) {
    const CommandResult r = run_linksim("run-graph " + shell_quote(c.prefix) + " -t dgx-h100");
    EXPECT_EQ(r.exit_code, 2) << c.prefix;
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, "linksim: error: " + c.error);
  }
}

}  // namespace
}  // namespace linksim::testing
