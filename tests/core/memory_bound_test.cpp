// The heap bound behind --max-memory (sim/core/memory_bound.hpp): an allocation past it is
// refused before it is made, with a message that says what the run held, asked for and did.
#include "sim/core/memory_bound.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/temp_files.hpp"

namespace linksim {
namespace {

// Each test runs in a process of its own under ctest; still, leave no bound behind.
class MemoryBoundTest : public ::testing::Test {
 protected:
  void TearDown() override { set_memory_bound(0); }
};

TEST_F(MemoryBoundTest, TheMessageSaysTheBoundWhatWasHeldAskedAndDone) {
  // 2 GiB = 2,147,483,648 B; held 2,147,483,600 B = 2.0 GiB to one decimal; asked 48 B.
  const MemoryBoundExceeded e(48, 2'147'483'600, 2'147'483'648,
                              "simulating alltoall of 1.07 GB on 4096 GPUs");
  EXPECT_STREQ(e.what(),
               "the run needs more memory than --max-memory allows (2.0 GiB): it held 2.0 GiB "
               "and asked for 48.0 B more while simulating alltoall of 1.07 GB on 4096 GPUs; "
               "give --max-memory a larger bound if the machine has it, or ask a smaller "
               "question");
  // No phase: nothing after the sizes but the advice. 1.5 MiB = 1,572,864 B; 3 KiB = 3,072 B.
  const MemoryBoundExceeded bare(3072, 1'572'864, 1'572'864 * 2, "");
  EXPECT_STREQ(bare.what(),
               "the run needs more memory than --max-memory allows (3.0 MiB): it held 1.5 MiB "
               "and asked for 3.0 KiB more; give --max-memory a larger bound if the machine has "
               "it, or ask a smaller question");
}

TEST_F(MemoryBoundTest, AnAllocationPastTheBoundIsRefusedBeforeItIsMade) {
  std::vector<char> kept(1024, 'x');
  const MemoryPhase phase("growing a test vector");  // its text is held too
  const std::size_t held = memory_in_use();
  ASSERT_GE(held, 1024u);  // the counting allocator is linked in and counts
  set_memory_bound(held + (1u << 20));
  try {
    std::vector<char> big(4u << 20);
    FAIL() << "4 MiB allocated under a bound 1 MiB above what was held";
  } catch (const MemoryBoundExceeded& e) {
    EXPECT_EQ(e.requested_bytes(), 4u << 20);
    EXPECT_EQ(e.bound(), held + (1u << 20));
    EXPECT_NE(std::string(e.what()).find(" while growing a test vector; "), std::string::npos)
        << e.what();
  }
  // Nothing was taken, and what was held is intact.
  EXPECT_EQ(memory_in_use(), held);
  EXPECT_EQ(kept.back(), 'x');
  // Under the bound, allocations go on; with the bound removed, so do big ones.
  std::vector<char> small(1024);
  set_memory_bound(0);
  std::vector<char> big(4u << 20);
  EXPECT_EQ(big.size(), 4u << 20);
}

TEST_F(MemoryBoundTest, TheCliStopsARunPastItsBoundWithNothingWritten) {
  const auto r = testing::run_linksim(
      "nccl-tests --topology dgx-a100 all_reduce_perf -b 1M -e 1M -g 8 --max-memory 1MB");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  // 1 MB = 1,000,000 B = 976.6 KiB. What it held when it stopped depends on the build's
  // allocator, so the test holds the rest of the line.
  const std::string head =
      "linksim: error: the run needs more memory than --max-memory allows (976.6 KiB): it held ";
  EXPECT_EQ(r.err.substr(0, head.size()), head) << r.err;
  const std::string tail =
      "; give --max-memory a larger bound if the machine has it, or ask a smaller question\n";
  ASSERT_GE(r.err.size(), tail.size());
  EXPECT_EQ(r.err.substr(r.err.size() - tail.size()), tail) << r.err;
}

TEST_F(MemoryBoundTest, AMachineFileTooLargeForTheBoundIsNamed) {
  // 999,999 GPUs on one switch: within the loader's node and link counts (at most 1,000,000
  // nodes), but its nodes alone take well over 32 MiB, so the bound stops the loader, and the
  // message names the file it was reading.
  testing::TempDir dir;
  const std::string file = dir.write("million.json",
                                     R"({"title": "a million GPUs", "nodes": [
           {"id": "gpu", "kind": "gpu", "count": 999999, "model": "H100-SXM5-80GB"},
           {"id": "sw", "kind": "nvswitch"}],
          "links": [{"for": {"g": "0..999998"}, "a": "gpu{g}", "b": "sw", "kind": "nvlink",
                     "generation": 4, "lanes": 1}]})");
  const auto r =
      testing::run_linksim("topo check " + testing::shell_quote(file) + " --max-memory 32MiB");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("more while reading the machine file " + file + "; give --max-memory"),
            std::string::npos)
      << r.err;
}

TEST_F(MemoryBoundTest, ABadFileIsRefusedBeforeALargeCountIsExpanded) {
  // Found by the topology fuzzer: 999,999 nodes would take far more than the 32 MiB bound, so
  // each refusal below comes from the file's own check, made before any node is built; with
  // the expansion first, the bound's message would come instead.
  testing::TempDir dir;
  const std::string without_links = dir.write(
      "no-links.json",
      R"({"title": "t", "nodes": [{"id": "cpu", "kind": "cpu", "count": 999999, "vendor": "intel"}]})");
  const auto a = testing::run_linksim("topo check " + testing::shell_quote(without_links) +
                                      " --max-memory 32MiB");
  EXPECT_EQ(a.exit_code, 2);
  EXPECT_EQ(a.err,
            "linksim: error: " + without_links + ": at /: missing required field \"links\"\n");
  const std::string bad_second_entry = dir.write(
      "bad-entry.json",
      R"({"title": "t", "nodes": [{"id": "gpu", "kind": "gpu", "count": 999998, "model": "H100-SXM5-80GB"},
                                  {"id": "sw", "kind": "nvswitch", "count": 0}], "links": []})");
  const auto b = testing::run_linksim("topo check " + testing::shell_quote(bad_second_entry) +
                                      " --max-memory 32MiB");
  EXPECT_EQ(b.exit_code, 2);
  EXPECT_EQ(b.err, "linksim: error: " + bad_second_entry +
                       ": at /nodes/1/count: expected a count from 1 to 1000000\n");
}

TEST_F(MemoryBoundTest, TheCliRefusesABadBoundAndTakesItAnywhere) {
  const auto bad = testing::run_linksim("--max-memory lots topo list");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err,
            "linksim: error: --max-memory: expected a size such as 16GiB, 512MB or 0, not "
            "\"lots\" (see linksim --help)\n");
  const auto missing = testing::run_linksim("topo list --max-memory");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_EQ(missing.err,
            "linksim: error: --max-memory: expected a size after it (see linksim --help)\n");
  // After a command's own arguments, and nccl-tests' pass-through ones, as before them.
  const auto after = testing::run_linksim(
      "nccl-tests --topology rtx2080ti-2x all_reduce_perf -b 8 -e 8 -g 2 --max-memory=0");
  EXPECT_EQ(after.exit_code, 0) << after.err;
  const auto plain =
      testing::run_linksim("nccl-tests --topology rtx2080ti-2x all_reduce_perf -b 8 -e 8 -g 2");
  EXPECT_EQ(after.out, plain.out);
}

}  // namespace
}  // namespace linksim
