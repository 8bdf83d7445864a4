// fit reads nccl-tests logs whatever their name: its -J JSON (src/util.cu json* @a0b82b22,
// version 3), FILE:BINARY, the "# Collective test starting" line; it refuses linksim's own
// simulated output; and a machine with "base" is fitted as the self-contained machine it is.
#include <gtest/gtest.h>

#include "calibrate/calibrated_document.hpp"
#include "calibrate/import_nccl_tests.hpp"
#include "sim/core/error.hpp"
#include "sim/core/json_view.hpp"
#include "sim/topo/loader.hpp"
#include "tests/support/temp_files.hpp"
#include "tests/support/thrown_message.hpp"

namespace linksim::calibrate {
namespace {

// A -J file as nccl-tests 2.19.6 writes it for 2 ranks, trimmed to two sizes.
const char* kRealJson =
    R"({"version":3,"start_time":"2025-11-02 10:00:00","args":["./build/all_gather_perf","-b","8","-e","1K","-f","128","-g","2"],)"
    R"("env":[],"nccl_version":22704,"config":{"nthreads":1,"ngpus":2,"minimum_bytes":8,"maximum_bytes":1024,)"
    R"("step_factor":128,"warmup_iters":1,"iterations":20,"aggregated_iterations":1,"validation":1,"graph":0,)"
    R"("blocking_collectives":"false","per_iter_timing":"false","per_iter_skip":0,"parallel_init":"false",)"
    R"("devices":[{"rank":0,"group":0,"pid":4242,"hostname":"gpu01","device":0,"device_hex":"0000:3b:00","device_info":"NVIDIA GeForce RTX 2080 Ti"},)"
    R"({"rank":1,"group":0,"pid":4242,"hostname":"gpu01","device":1,"device_hex":"0000:5e:00","device_info":"NVIDIA GeForce RTX 2080 Ti"}]},)"
    R"("results":[{"size":0,"count":0,"type":"float","redop":"none","root":"    -1",)"
    R"("out_of_place":{"time":5.120000,"alg_bw":0.000000,"bus_bw":0.000000,"nwrong":0.000000},)"
    R"("in_place":{"time":5.010000,"alg_bw":0.000000,"bus_bw":0.000000,"nwrong":0.000000},"actual_iterations":20,"experiment_name":""},)"
    R"({"size":1024,"count":128,"type":"float","redop":"none","root":"    -1",)"
    R"("out_of_place":{"time":10.110000,"alg_bw":0.100000,"bus_bw":0.050000,"nwrong":0.000000},)"
    R"("in_place":{"time":9.900000,"alg_bw":0.100000,"bus_bw":0.050000,"nwrong":0.000000},"actual_iterations":20,"experiment_name":""}],)"
    R"("out_of_bounds":{"count":0,"okay":"true"},"average_bus_bandwidth":{"bandwidth":0.025000,"okay":"unchecked"},)"
    R"("errors":[""],"end_time":"2025-11-02 10:00:01"})";

std::string error_of(const std::string& text, const std::string& file) {
  return testing::thrown_message<InputError>([&] { import_nccl_tests(text, file); });
}

TEST(ImportNcclTestsJson, ReadsTheBinarysOwnJsonFile) {
  // Named so that nothing but the "args" can tell the binary.
  const auto log = import_nccl_tests(kRealJson, "results-17.json");
  EXPECT_EQ(log.op, "all_gather_perf");  // args[0], path and all
  EXPECT_EQ(log.threads, 1);
  EXPECT_EQ(log.gpus_per_thread, 2);
  EXPECT_EQ(log.iterations, 20);
  EXPECT_EQ(log.ranks, 2);  // two "devices"
  ASSERT_EQ(log.records.size(), 4u);
  EXPECT_EQ(log.records[2].variant, "out_of_place");
  EXPECT_DOUBLE_EQ(log.records[2].size_bytes, 1024.0);
  EXPECT_DOUBLE_EQ(log.records[2].time_s, 10.11e-6);
  EXPECT_DOUBLE_EQ(log.records[2].bus_bandwidth_Bps, 0.05e9);
  EXPECT_DOUBLE_EQ(log.records[3].time_s, 9.9e-6);
  EXPECT_EQ(log.records[0].kind, "nccl:all_gather_perf");
  EXPECT_DOUBLE_EQ(log.avg_bus_bandwidth_Bps, 0.025e9);
  // "nccl_version":22704 is NCCL 2.27.4: every record carries it, so fit simulates that release.
  EXPECT_EQ(log.nccl_version, 22704);
  EXPECT_EQ(log.records[3].nccl_version, 22704);
}

TEST(ImportNcclTests, TheLibrarysVersionLineIsRead) {
  // nccl-tests prints "# nccl-tests version V nccl-headers=H nccl-library=L" first; the library
  // is what ran. A log without the line, or with a code linksim does not know, says nothing.
  const std::string table =
      "# Collective test starting: all_reduce_perf\n"
      "# nThread 1 nGpus 2 minBytes 1024 maxBytes 1024 step: 2(factor) warmup iters: 5 iters: "
      "20 agg iters: 1 validation: 1 graph: 0\n"
      "#\n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     "
      "time   algbw   busbw #wrong\n"
      "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            "
      "(us)  (GB/s)  (GB/s)\n"
      "        1024           256     float     sum      -1    12.10    0.08    0.08      0    "
      "12.10    0.08    0.08      0\n"
      "# Out of bounds values : 0 OK\n"
      "# Avg bus bandwidth    : 0.08\n";
  const auto with = import_nccl_tests(
      "# nccl-tests version 2.17.6 nccl-headers=21805 nccl-library=21805\n" + table, "a.log");
  EXPECT_EQ(with.nccl_version, 21805);
  ASSERT_FALSE(with.records.empty());
  EXPECT_EQ(with.records.front().nccl_version, 21805);
  EXPECT_EQ(import_nccl_tests(table, "a.log").nccl_version, 0);
  EXPECT_EQ(import_nccl_tests("# nccl-tests version 2.17.6 nccl-headers=0 nccl-library=0\n" + table,
                              "a.log")
                .nccl_version,
            0);
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

TEST(ImportNcclTestsJson, RefusesFailedValidationRepeatsAndBusbwOffTheFactor) {
  // The 1 KiB result's in-place run with 3 wrong values: it did not compute the collective.
  EXPECT_EQ(
      error_of(
          replaced(
              kRealJson,
              R"("in_place":{"time":9.900000,"alg_bw":0.100000,"bus_bw":0.050000,"nwrong":0.000000})",
              R"("in_place":{"time":9.900000,"alg_bw":0.100000,"bus_bw":0.050000,"nwrong":3})"),
          "r.json"),
      "r.json: at /results/1/in_place/nwrong: 3 wrong results: the run failed validation");
  // all_gather on 2 ranks: busbw = algbw x (2 - 1) / 2 = 0.1 x 0.5 = 0.05 GB/s; 0.09 is not.
  EXPECT_EQ(
      error_of(replaced(kRealJson,
                        R"("out_of_place":{"time":10.110000,"alg_bw":0.100000,"bus_bw":0.050000)",
                        R"("out_of_place":{"time":10.110000,"alg_bw":0.100000,"bus_bw":0.090000)"),
               "r.json"),
      "r.json: at /results/1/out_of_place/bus_bw: busbw 0.09 GB/s is not alg_bw 0.1 GB/s x "
      "0.5 (all_gather_perf's bus factor for 2 ranks) = 0.05 GB/s");
  // The 1 KiB result again as a third result: a second run pasted in.
  const std::string second =
      R"({"size":1024,"count":128,"type":"float","redop":"none","root":"    -1",)"
      R"("out_of_place":{"time":10.2,"alg_bw":0.1,"bus_bw":0.05,"nwrong":0},"in_place":null})";
  EXPECT_EQ(error_of(replaced(kRealJson, R"("actual_iterations":20,"experiment_name":""}],)",
                              R"("actual_iterations":20,"experiment_name":""},)" + second + "],"),
                     "r.json"),
            "r.json: at /results/2: a second result for 1024 B float none root -1 (the first is "
            "at /results/1); give one run per file");
}

TEST(ImportNcclTestsJson, ConfigCountsAreBlamedOnTheLogsOwnFields) {
  // "ngpus": 10^9 used to be taken as is: the fit then derived a host launch cost from it, and
  // `linksim fit` blamed the shipped machine's /host_launch/range. It is the log's field.
  EXPECT_EQ(error_of(replaced(kRealJson, R"("ngpus":2)", R"("ngpus":1000000000)"), "r.json"),
            "r.json: at /config/ngpus: 1000000000 is above the 1048576 linksim accepts");
  EXPECT_EQ(error_of(replaced(kRealJson, R"("nthreads":1)", R"("nthreads":0)"), "r.json"),
            "r.json: at /config/nthreads: expected at least 1, got 0");
  // Two devices cannot come from one thread driving 4 GPUs (as for a text log's Rank lines).
  EXPECT_EQ(error_of(replaced(kRealJson, R"("ngpus":2)", R"("ngpus":4)"), "r.json"),
            "r.json: at /config/devices: 2 devices are not a whole number of processes of 1 x 4 "
            "GPUs");
  EXPECT_EQ(
      error_of(replaced(kRealJson, R"("iterations":20)", R"("iterations":10000000000)"), "r.json"),
      "r.json: at /config/iterations: expected an integer from 0 to 1073741824, got 10000000000");
}

TEST(ImportNcclTestsJson, ResultsNeedASizeTypeAndReductionNcclTestsPrints) {
  // A negative size, an unknown type or an unknown reduction used to be listed as "fitted".
  EXPECT_EQ(
      error_of(replaced(kRealJson, R"({"size":1024,"count":128)", R"({"size":-1024,"count":128)"),
               "r.json"),
      "r.json: at /results/1/size: expected a size of at least 0 bytes, got -1024");
  EXPECT_EQ(
      error_of(replaced(kRealJson, R"("count":128,"type":"float")", R"("count":128,"type":"quad")"),
               "r.json"),
      "r.json: at /results/1/type: unknown data type \"quad\"; expected one of int8, uint8, "
      "int32, uint32, int64, uint64, half, float, double, bfloat16, f8e4m3, f8e5m2");
  EXPECT_EQ(error_of(replaced(kRealJson, R"("redop":"none")", R"("redop":"xor")"), "r.json"),
            "r.json: at /results/0/redop: unknown reduction \"xor\"; expected sum, prod, max, "
            "min, avg, mulsum or none");
  // hypercube.cu passes no reduction's name: its results say "" (and its bus factor is 1).
  Json hypercube = Json::parse(kRealJson);
  hypercube["args"][0] = "./build/hypercube_perf";
  for (auto& result : hypercube["results"]) {
    result["redop"] = "";
    for (const char* placement : {"out_of_place", "in_place"})
      result[placement]["bus_bw"] = result[placement]["alg_bw"];
  }
  EXPECT_EQ(error_of(hypercube.dump(), "h.json"), "accepted");
  EXPECT_EQ(error_of(replaced(kRealJson, R"("redop":"none")", R"("redop":"")"), "r.json"),
            "r.json: at /results/0/redop: unknown reduction \"\"; expected sum, prod, max, min, "
            "avg, mulsum or none");
}

TEST(ImportNcclTestsJson, TheNcclVersionMustBeARelease) {
  // -1 and 10^12 used to be dropped in silence, and the run fitted as the modelled release.
  EXPECT_EQ(
      error_of(replaced(kRealJson, R"("nccl_version":22704)", R"("nccl_version":-1)"), "r.json"),
      "r.json: at /nccl_version: expected an NCCL_VERSION_CODE such as 23007 (2.30.7), "
      "from 20900 (2.9.0) on, got -1");
  EXPECT_EQ(
      error_of(replaced(kRealJson, R"("nccl_version":22704)", R"("nccl_version":1e12)"), "r.json"),
      "r.json: at /nccl_version: expected an NCCL_VERSION_CODE such as 23007 (2.30.7), "
      "from 20900 (2.9.0) on, got 1000000000000.0");
  EXPECT_EQ(error_of(replaced(kRealJson, R"("nccl_version":22704)", R"("nccl_version":"2.27.4")"),
                     "r.json"),
            "r.json: at /nccl_version: expected an NCCL_VERSION_CODE such as 23007 (2.30.7), from "
            "20900 (2.9.0) on, got \"2.27.4\"");
  // 2.8.4 (2804, the code's older form) is before the releases the model stands for.
  EXPECT_EQ(
      error_of(replaced(kRealJson, R"("nccl_version":22704)", R"("nccl_version":2804)"), "r.json"),
      "r.json: at /nccl_version: expected an NCCL_VERSION_CODE such as 23007 (2.30.7), "
      "from 20900 (2.9.0) on, got 2804");
}

TEST(ImportNcclTestsJson, LinksimsOwnOutputIsNoMeasurement) {
  Json doc = Json::parse(kRealJson);
  doc["linksim"] = {{"simulated", true}};
  EXPECT_EQ(error_of(doc.dump(), "sim.json"),
            "sim.json: at /linksim: this is linksim's own -J output (a simulation), not a "
            "measurement: fit needs a log from a real run");
  // The printout: linksim numbers rank 0's bus from 0000:00:00, where no GPU sits.
  const std::string printout =
      "# nccl-tests version 2.19.6 nccl-headers=23007 nccl-library=23007\n"
      "# Collective test starting: all_reduce_perf\n"
      "#\n# Using devices\n"
      "#  Rank  0 Group  0 Pid      0 on   dgx-h100 device  0 [0000:00:00] H100-SXM5-80GB\n";
  EXPECT_EQ(error_of(printout, "log.txt"),
            "log.txt: at line 5: this is linksim's own nccl-tests output (a simulation), not a "
            "measurement: fit needs a log from a real run");
  EXPECT_NE(error_of("# linksim simulation of nccl-tests all_reduce_perf on x\n", "old.txt")
                .find("linksim's own nccl-tests output"),
            std::string::npos);
}

TEST(ImportNcclTestsJson, FileColonBinaryNamesTheBinary) {
  linksim::testing::TempDir dir;
  const std::string text = linksim::testing::read_file(
      linksim::testing::source_dir() + "/tests/data/calibrate/rtx2080ti-2x-all_reduce_perf.txt");
  // A log whose name says nothing, and a text without a command line: strip the binary's name.
  std::string anonymous = text;
  for (std::size_t at; (at = anonymous.find("all_reduce_perf")) != std::string::npos;)
    anonymous.replace(at, 15, "run");
  const std::string path = dir.write("run3.log", anonymous);
  EXPECT_EQ(split_nccl_tests_log_argument(path + ":all_reduce_perf").path, path);
  EXPECT_EQ(split_nccl_tests_log_argument(path + ":all_reduce_perf").binary, "all_reduce_perf");
  EXPECT_EQ(import_nccl_tests_file(path + ":all_reduce_perf").op, "all_reduce_perf");
  EXPECT_EQ(split_nccl_tests_log_argument(path).binary, "");
  try {
    split_nccl_tests_log_argument(path + ":allreduce");
    FAIL() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("\"allreduce\" after the colon is not an nccl-tests "
                                         "binary"),
              std::string::npos)
        << e.what();
  }
}

// hgx-h200 is dgx-h100 ("base") with its GPUs swapped ("replace_models").
TEST(SelfContainedDocument, ABaseMachineBecomesItsOwnFile) {
  const std::string path = topo::resolve_topology_path("hgx-h200");
  const Json doc = self_contained_document(read_json_file(path), path);
  EXPECT_FALSE(doc.contains("base"));
  EXPECT_FALSE(doc.contains("replace_models"));
  EXPECT_TRUE(doc.contains("links"));
  const topo::Topology flat = topo::parse_topology(doc, path);
  const topo::Topology loaded = topo::load_topology("hgx-h200");
  ASSERT_EQ(flat.count(topo::NodeKind::gpu), 8u);
  EXPECT_EQ(flat.links().size(), loaded.links().size());
  for (const auto g : flat.nodes_of(topo::NodeKind::gpu))
    EXPECT_EQ(flat.node(g).model, "H200-SXM-141GB");
  EXPECT_EQ(flat.title, loaded.title);
}

TEST(SelfContainedDocument, FitWritesOneForABaseMachine) {
  linksim::testing::TempDir dir;
  const auto p2p = linksim::testing::run_linksim("p2p --topology hgx-h200");
  ASSERT_EQ(p2p.exit_code, 0) << p2p.err;
  const std::string log = dir.write("p2p.txt", p2p.out);
  const std::string out = dir.path() + "/h200.json";
  const auto r = linksim::testing::run_linksim("fit --topology hgx-h200 --p2p " +
                                               linksim::testing::shell_quote(log) + " -o " +
                                               linksim::testing::shell_quote(out));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json written = Json::parse(linksim::testing::read_file(out));
  EXPECT_FALSE(written.contains("base"));
  EXPECT_EQ(topo::load_topology(out).count(topo::NodeKind::gpu), 8u);
}

}  // namespace
}  // namespace linksim::calibrate
