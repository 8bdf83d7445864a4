// The nccl-tests façade (sim/app/nccl_tests_run.hpp): the environment comes in as values, the
// memory limit and the -J destination follow nccl-tests' own rules.
#include "sim/app/nccl_tests_run.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "sim/core/error.hpp"
#include "tests/support/temp_files.hpp"
#include "tests/support/thrown_message.hpp"

namespace linksim::app {
namespace {

NcclTestsResult run_on(const std::string& machine, const std::vector<std::string>& arguments,
                       const std::vector<std::string>& environment = {}) {
  NcclTestsOptions options;
  options.machine = machine;
  options.environment = environment;
  return simulate_nccl_tests(options, parse_nccl_tests_invocation("all_reduce_perf", arguments),
                             "");
}

TEST(NcclTestsRunTest, AnUnknownBinaryIsRefusedByName) {
  const std::string error = testing::thrown_message<InputError>(
      [] { parse_nccl_tests_invocation("/opt/bin/allreduce_perf", {}); });
  EXPECT_NE(error.find("unknown nccl-tests binary \"allreduce_perf\""), std::string::npos) << error;
}

TEST(NcclTestsRunTest, NcclAlgoInThePassedEnvironmentNarrowsTheChoice) {
  // dgx-h100 picks NVLS for a 1 GiB all-reduce when free to; NCCL_ALGO=Ring, passed as a value
  // (not read from the process), must leave Ring alone and be echoed in -J's env.
  const std::vector<std::string> one_size{"-b", "1G", "-e", "1G", "-g", "8"};
  const NcclTestsResult free_run = run_on("dgx-h100", one_size);
  ASSERT_EQ(free_run.rows.size(), 1u);
  EXPECT_EQ(free_run.rows[0].outcome.choice.algorithm, coll::Algorithm::nvls);
  const NcclTestsResult ring = run_on("dgx-h100", one_size, {"NCCL_ALGO=Ring", "HOME=/x"});
  ASSERT_EQ(ring.rows.size(), 1u);
  EXPECT_EQ(ring.rows[0].outcome.choice.algorithm, coll::Algorithm::ring);
}

TEST(NcclTestsRunTest, TheNcclVersionIsPrintedAndReachesTheRequests) {
  // --nccl-version 2.18.5 is NCCL_VERSION_CODE 21805 in the header, as nccl-tests prints it,
  // and in every request; a release that is not one is refused naming the option.
  NcclTestsOptions options;
  options.machine = "dgx-h100";
  options.nccl_version = "2.18.5";
  const auto one_size =
      parse_nccl_tests_invocation("all_reduce_perf", {"-b", "64K", "-e", "64K", "-g", "8"});
  const NcclTestsResult r = simulate_nccl_tests(options, one_size, "");
  EXPECT_NE(r.printout.find("nccl-headers=21805 nccl-library=21805"), std::string::npos);
  EXPECT_EQ(r.spec.nccl_version, 21805);
  options.nccl_version = "2.18";
  const std::string error =
      testing::thrown_message<InputError>([&] { simulate_nccl_tests(options, one_size, ""); });
  EXPECT_NE(error.find("--nccl-version: \"2.18\" is not an NCCL release"), std::string::npos)
      << error;
}

TEST(NcclTestsRunTest, ExplainSaysHowManyChannelsCarryASmallMessage) {
  // A 64 KiB NVLS all-reduce on 8 GPUs, 16 channels:
  // - NCCL 2.18.5 gives channel b the block [b x 8 heads x 16 KiB, ...): 64 KiB < 128 KiB, so
  //   one channel carries it all;
  // - NCCL 2.30.7 cuts cells of 32 KiB of traffic, 2 B of traffic a byte for an all-reduce:
  //   64 KiB x 2 / 32 KiB = 4 cells on 4 channels.
  // --explain says so; a 1 GiB message reaches all 16 and the line says nothing more.
  NcclTestsOptions options;
  options.machine = "dgx-h100";
  options.algo = "NVLS";
  options.explain = true;
  const auto sizes = parse_nccl_tests_invocation(
      "all_reduce_perf", {"-b", "64K", "-e", "1G", "-f", "16384", "-g", "8"});
  options.nccl_version = "2.18.5";
  const NcclTestsResult old_release = simulate_nccl_tests(options, sizes, "");
  ASSERT_EQ(old_release.rows.size(), 2u);
  EXPECT_EQ(old_release.rows[0].outcome.data_channels, 1);
  EXPECT_EQ(old_release.rows[1].outcome.data_channels, 16);
  EXPECT_NE(old_release.printout.find("NVLS/Simple 16 channel(s), 1 carrying data; bottleneck"),
            std::string::npos)
      << old_release.printout;
  options.nccl_version.clear();
  const NcclTestsResult new_release = simulate_nccl_tests(options, sizes, "");
  ASSERT_EQ(new_release.rows.size(), 2u);
  EXPECT_EQ(new_release.rows[0].outcome.data_channels, 4);
  EXPECT_NE(new_release.printout.find("NVLS/Simple 16 channel(s), 4 carrying data; bottleneck"),
            std::string::npos);
  EXPECT_NE(new_release.printout.find("NVLS/Simple 16 channel(s); bottleneck"), std::string::npos);
}

TEST(NcclTestsRunTest, MaxBytesShrinksToTheGpusMemory) {
  // rtx4090-8x: 24 GiB a GPU. common.cu sets aside ceil(24 / 16) = 2 GiB and 1 GiB more, and
  // with checking on (-c 1, the default) needs three buffers: (24 - 2 - 1) GiB / 3 = 7 GiB =
  // 7516192768 B, so -e 64G is reduced to that and the last row is 7 GiB.
  const NcclTestsResult r = run_on("rtx4090-8x", {"-b", "1G", "-e", "64G", "-f", "2", "-g", "8"});
  EXPECT_NE(r.printout.find("# Reducing maxBytes to 7516192768 due to memory limitation"),
            std::string::npos);
  ASSERT_FALSE(r.rows.empty());
  EXPECT_EQ(r.spec.max_bytes, 7516192768.0);
}

TEST(NcclTestsRunTest, JsonDestinationNeverOverwritesUnlessAsked) {
  const testing::TempDir dir;
  const std::string path = dir.path() + "/out.json";
  EXPECT_EQ(nccl_tests_json_destination(path, false).path, path);
  dir.write("out.json", "{}");
  EXPECT_EQ(nccl_tests_json_destination(path, false).path, path + ".0");
  dir.write("out.json.0", "{}");
  EXPECT_EQ(nccl_tests_json_destination(path, false).path, path + ".1");
  EXPECT_EQ(nccl_tests_json_destination(path, true).path, path);
  EXPECT_EQ(nccl_tests_json_destination(path, true).note, "");
  // No -J: nothing, and nothing said.
  const NcclTestsJsonDestination none = nccl_tests_json_destination("", false, false);
  EXPECT_EQ(none.path + none.printed_line + none.note, "");
}

// nccl-tests writes only a name ending in .json (common.cu classifyOutputFile) and says nothing
// of another; linksim says on stderr that nothing was written.
TEST(NcclTestsRunTest, JsonDestinationOfAnotherNameIsNoneAndSaysSo) {
  const NcclTestsJsonDestination txt = nccl_tests_json_destination("/tmp/out.txt", false);
  EXPECT_EQ(txt.path, "");
  EXPECT_EQ(txt.printed_line, "");
  EXPECT_EQ(txt.note,
            "linksim: note: -J \"/tmp/out.txt\": nothing written; nccl-tests writes JSON only to a "
            "file name ending in .json\n");
  EXPECT_EQ(nccl_tests_json_destination("", false).note,
            "linksim: note: -J \"\": nothing written; nccl-tests writes JSON only to a file name "
            "ending in .json\n");
  EXPECT_EQ(nccl_tests_json_destination("/dev/full", false).path, "");
}

// A destination fopen(.., "wx") cannot create is skipped with nccl-tests' own line (util.cu
// jsonOutputInit), and linksim says why on stderr; a folder named like the file is an existing
// name, so the next probe is taken, as EEXIST makes util.cu do (was: internal error for a name
// too long, a refusal for a missing folder).
TEST(NcclTestsRunTest, JsonDestinationThatCannotBeCreatedIsSkipped) {
  const testing::TempDir dir;
  const std::string missing = dir.path() + "/no/out.json";
  const NcclTestsJsonDestination m = nccl_tests_json_destination(missing, false);
  EXPECT_EQ(m.path, "");
  EXPECT_EQ(m.printed_line, "# skipping json output; " + missing + " not accessible\n");
  EXPECT_EQ(m.note, "linksim: note: -J \"" + missing + "\": nothing written (no folder " +
                        dir.path() + "/no); nccl-tests skips its JSON output then\n");
  // 300 characters: past any file system's 255 for one name.
  const std::string long_name = dir.path() + "/" + std::string(295, 'x') + ".json";
  const NcclTestsJsonDestination l = nccl_tests_json_destination(long_name, false);
  EXPECT_EQ(l.path, "");
  EXPECT_EQ(l.printed_line, "# skipping json output; " + long_name + " not accessible\n");
  EXPECT_EQ(l.note, "linksim: note: -J \"" + long_name +
                        "\": nothing written (File name too long); nccl-tests skips its JSON "
                        "output then\n");
  std::filesystem::create_directory(dir.path() + "/d.json");
  EXPECT_EQ(nccl_tests_json_destination(dir.path() + "/d.json", false).path,
            dir.path() + "/d.json.0");
}

}  // namespace
}  // namespace linksim::app
