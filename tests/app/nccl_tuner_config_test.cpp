// `linksim tune`'s library call (sim/app/nccl_tuner_config.hpp): on every shipped cluster and
// on single machines, the file it writes is read back with the tests' own parser of NCCL's
// example tuner plugin format (tests/support/nccl_tuner_conf_parser.hpp), and the plugin's
// first-match lookup of every simulated size gives exactly what was decided for it.
#include "sim/app/nccl_tuner_config.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "sim/app/nccl_tuner_ranges.hpp"
#include "sim/core/error.hpp"
#include "sim/core/parallel_cases.hpp"
#include "tests/support/nccl_tuner_conf_parser.hpp"
#include "tests/support/temp_files.hpp"
#include "tests/support/thrown_message.hpp"

namespace linksim::app {
namespace {

// The plugin's view of the file: it parses cleanly, every row is for this run's nodes and
// ranks, and the row the plugin would apply at each simulated size is the one decided for it
// (none where NCCL's own choice stands).
void expect_plugin_reads_what_was_decided(const NcclTunerResult& r, double margin_percent,
                                          const std::string& machine) {
  SCOPED_TRACE(machine);
  const testing::TunerConfParse parsed = testing::parse_tuner_conf(r.text);
  ASSERT_TRUE(parsed.errors.empty()) << parsed.errors.front() << "\n" << r.text;
  ASSERT_EQ(parsed.entries.size(), r.lines.size());
  for (const auto& e : parsed.entries) {
    EXPECT_EQ(e.nodes, r.nodes);
    EXPECT_EQ(e.ranks, r.ranks);
    EXPECT_GE(e.channels, 1);
    EXPECT_EQ(e.pipe_ops, -1);
    EXPECT_EQ(e.reg_buff, -1);
  }
  for (const NcclTunerCase& c : r.cases) {
    const std::string name(*report::nccl_tuner_collective_name(c.op));
    const auto* hit =
        testing::tuner_conf_match(parsed.entries, name, c.size_bytes, r.nodes, r.ranks);
    if (!c.written) {
      EXPECT_EQ(hit, nullptr) << name << " " << c.size_bytes;
      continue;
    }
    ASSERT_NE(hit, nullptr) << name << " " << c.size_bytes;
    EXPECT_EQ(hit->algorithm, *report::nccl_tuner_algorithm_name(c.written->algorithm));
    EXPECT_EQ(hit->protocol, report::nccl_tuner_protocol_name(c.written->protocol));
    EXPECT_EQ(hit->channels, c.written->channels);
    // The sizes up to the next power of two follow the same row.
    EXPECT_EQ(
        testing::tuner_conf_match(parsed.entries, name, 2 * c.size_bytes - 1, r.nodes, r.ranks),
        hit);
    if (c.overrides) {
      ASSERT_TRUE(c.nccl.has_value());
      EXPECT_FALSE(same_choice(*c.nccl, *c.written));
      EXPECT_GT(c.nccl_s, c.best_s * (1 + margin_percent / 100));
    }
  }
}

NcclTunerResult tune(const std::string& machine, std::uint64_t min_bytes, std::uint64_t max_bytes,
                     int nodes = 0, bool all_sizes = false) {
  NcclTunerOptions o;
  o.machine = machine;
  o.nodes = nodes;
  o.min_bytes = min_bytes;
  o.max_bytes = max_bytes;
  o.all_sizes = all_sizes;
  return tune_nccl(o);
}

TEST(NcclTunerConfig, EveryShippedClusterGetsAFileThePluginReads) {
  std::vector<std::string> clusters;
  for (const auto& e :
       std::filesystem::directory_iterator(testing::source_dir() + "/topologies/clusters")) {
    if (e.path().extension() == ".json" && e.path().stem() != "schema")
      clusters.push_back(e.path().stem().string());
  }
  std::sort(clusters.begin(), clusters.end());
  ASSERT_GE(clusters.size(), 15u);
  // One size keeps the 256-rank clusters quick; the full sweep is the command's. The GB200
  // racks' 72-GPU NVLink domains are slow under the sanitizers: their first 16 GPUs here. The
  // clusters run side by side (one thread each), and are checked after, in order.
  std::vector<NcclTunerResult> results(clusters.size());
  run_cases(clusters.size(), 0, [&](std::size_t i) {
    NcclTunerOptions o;
    o.machine = clusters[i];
    o.ranks = clusters[i].starts_with("gb200-nvl72") ? 16 : 0;
    o.min_bytes = 4096;
    o.max_bytes = 4096;
    o.threads = 1;
    results[i] = tune_nccl(o);
  });
  for (std::size_t i = 0; i < clusters.size(); ++i) {
    EXPECT_GE(results[i].nodes, 1);
    EXPECT_EQ(results[i].cases.size(), 5u);
    expect_plugin_reads_what_was_decided(results[i], 5, clusters[i]);
  }
}

TEST(NcclTunerConfig, SingleMachinesAcrossTheSizesTheCommandSweeps) {
  for (const std::string machine : {"dgx-h100", "rtx4090-8x"}) {
    const NcclTunerResult r = tune(machine, 8, std::uint64_t{1} << 30);
    EXPECT_EQ(r.nodes, 1);
    EXPECT_EQ(r.ranks, 8);
    EXPECT_EQ(r.cases.size(), 5u * 28);
    expect_plugin_reads_what_was_decided(r, 5, machine);
  }
}

TEST(NcclTunerConfig, AllSizesWritesNcclsOwnPickWhereNothingIsOverridden) {
  const NcclTunerResult r = tune("dgx-h100", 65536, 262144, 2, /*all_sizes=*/true);
  EXPECT_EQ(r.nodes, 2);
  EXPECT_EQ(r.ranks, 16);
  for (const NcclTunerCase& c : r.cases) {
    ASSERT_TRUE(c.nccl.has_value());
    ASSERT_TRUE(c.written.has_value());
    if (!c.overrides) EXPECT_TRUE(same_choice(*c.written, *c.nccl));
  }
  expect_plugin_reads_what_was_decided(r, 5, "dgx-h100 x2, all sizes");
}

TEST(NcclTunerConfig, TheBaselineIsNcclsModelWithoutTheNetworkPluginsTuner) {
  // Four p6-b200 nodes, all-reduce 256 MiB: aws-ofi-nccl's region tuner would run Ring/LL128
  // (NcclTunerModel.AwsOfiRegionTunerOverridesTheModelFromThreeNodes), but the example tuner
  // this file feeds replaces it, so a size without a row runs NCCL's model's pick,
  // NVLSTree/Simple (NcclEnvVariablesCliTest.AwsOfiTunerTypeInternalLeavesThePickToNccl).
  const NcclTunerResult r =
      tune("aws-p6-b200-x4", std::uint64_t{256} << 20, std::uint64_t{256} << 20);
  ASSERT_FALSE(r.cases.empty());
  const NcclTunerCase& c = r.cases.front();
  ASSERT_EQ(c.op, coll::Op::all_reduce);
  ASSERT_TRUE(c.nccl.has_value());
  EXPECT_EQ(coll::to_string(c.nccl->algorithm), "NVLSTree");
  EXPECT_EQ(c.nccl->protocol, coll::Protocol::simple);
}

TEST(NcclTunerConfig, AHugeMarginLeavesEveryChoiceToNccl) {
  NcclTunerOptions o;
  o.machine = "dgx-h100";
  o.min_bytes = 8;
  o.max_bytes = 1 << 20;
  o.margin_percent = 1e6;
  const NcclTunerResult r = tune_nccl(o);
  EXPECT_TRUE(r.lines.empty());
  EXPECT_TRUE(std::none_of(r.cases.begin(), r.cases.end(),
                           [](const NcclTunerCase& c) { return c.written.has_value(); }));
  expect_plugin_reads_what_was_decided(r, 1e6, "dgx-h100, margin 1e6");
}

TEST(NcclTunerConfig, TheFileIsTheSameOnAnyNumberOfThreads) {
  NcclTunerOptions o;
  o.machine = "dgx-h100";
  o.min_bytes = 8;
  o.max_bytes = 1 << 20;
  o.threads = 1;
  const std::string one = tune_nccl(o).text;
  o.threads = 5;
  EXPECT_EQ(tune_nccl(o).text, one);
}

TEST(NcclTunerConfig, BadInputIsRefusedByName) {
  NcclTunerOptions o;
  o.machine = "dgx-h100";
  o.ranks = 9;
  const std::string too_many = testing::thrown_message<InputError>([&] { tune_nccl(o); });
  EXPECT_NE(too_many.find("--np: 9 ranks, but dgx-h100 has 8 GPUs"), std::string::npos) << too_many;
  o.ranks = 0;
  o.margin_percent = -1;
  EXPECT_NE(testing::thrown_message<InputError>([&] { tune_nccl(o); }).find("--margin"),
            std::string::npos);
  o.margin_percent = 5;
  o.min_bytes = 1024;
  o.max_bytes = 512;
  EXPECT_NE(testing::thrown_message<InputError>([&] { tune_nccl(o); }).find("exceeds --max-bytes"),
            std::string::npos);
  o.min_bytes = 8;
  o.machine = "no-such-machine";
  EXPECT_THROW(tune_nccl(o), InputError);
}

}  // namespace
}  // namespace linksim::app
