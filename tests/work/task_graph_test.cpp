#include "sim/work/task_graph.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>

#include "sim/coll/algorithm_registry.hpp"
#include "sim/coll/collective_sim.hpp"
#include "sim/coll/communicator.hpp"
#include "sim/core/error.hpp"
#include "sim/core/schema_check.hpp"
#include "sim/engine/summary.hpp"
#include "sim/report/formats.hpp"
#include "tests/support/simple_copy_share.hpp"
#include "tests/support/task_graph_test_box.hpp"
#include "tests/support/temp_files.hpp"
#include "tests/support/thrown_message.hpp"

namespace linksim::work {
namespace {

topo::Topology test_machine() {
  return testing::task_graph_test_box();
}

TaskGraph parse(const std::string& text, const topo::Topology& t) {
  return parse_task_graph(parse_json_text(text, "graph.json"), "graph.json", t);
}

std::string error_of(const std::string& text) {
  const topo::Topology t = test_machine();
  return testing::thrown_message<InputError>([&] { parse(text, t); });
}

constexpr const char* kSeed = R"({"tasks": [
  {"id": "backward", "kind": "compute", "gpu": "gpu0", "duration": "100 ms"},
  {"id": "gradient", "kind": "transfer", "src": "gpu0", "dst": "gpu1", "bytes": "10 GB",
   "deps": ["backward"]}]})";

TEST(TaskGraph, SeedOverPcie) {
  // 0.1 s compute, then 10 GB over PCIe 4.0 x16 at 32 GB/s: 0.1 + 10e9 / 32e9 = 0.4125 s.
  // Communication is 0.3125 / 0.4125 = 75.8% of the step.
  const topo::Topology t = test_machine();
  const TaskGraph g = parse(kSeed, t);
  const auto tl = g.simulation.run();
  EXPECT_DOUBLE_EQ(tl.makespan_s, 0.4125);  // 0.1 + 0.3125
  const engine::Names names{g.task_names, g.gpu_names, topo::channel_names(t)};
  const engine::Summary s = engine::summarize(g.simulation, tl, names);
  EXPECT_DOUBLE_EQ(s.gpus[0].comm_s, 0.3125);                  // 10e9 / 32e9
  EXPECT_DOUBLE_EQ(s.gpus[0].comm_fraction, 0.3125 / 0.4125);  // 75.8%
  EXPECT_DOUBLE_EQ(s.gpus[0].exposed_comm_s, 0.3125);          // nothing overlaps it
  EXPECT_EQ(g.gpu_names, (std::vector<std::string>{"gpu0", "gpu1", "gpu2"}));
}

TEST(TaskGraph, ByteCountMayBeAnInteger) {
  const topo::Topology t = test_machine();
  const TaskGraph g = parse(R"({"tasks": [{"id": "x", "kind": "transfer", "src": "gpu0",
      "dst": "nic0", "bytes": 32000000000}]})",
                            t);
  EXPECT_DOUBLE_EQ(g.simulation.run().makespan_s, 1.0);  // 32e9 / 32e9
}

TEST(TaskGraph, OutputDoesNotDependOnTaskOrder) {
  // Shuffle the tasks of a small graph; the JSON report must be byte-identical.
  const std::vector<std::string> tasks = {
      R"({"id": "a", "kind": "compute", "gpu": "gpu0", "duration": "1 ms"})",
      R"({"id": "b", "kind": "transfer", "src": "gpu0", "dst": "gpu1", "bytes": "1 GB", "deps": ["a"]})",
      R"({"id": "c", "kind": "transfer", "src": "gpu1", "dst": "gpu0", "bytes": "3 GB"})",
      R"({"id": "d", "kind": "transfer", "src": "gpu0", "dst": "nic0", "bytes": "2 GB", "deps": ["a"]})",
      R"({"id": "e", "kind": "delay", "duration": "5 us", "deps": ["b"]})",
      R"({"id": "f", "kind": "barrier", "deps": ["c", "d", "e"]})",
      R"({"id": "g", "kind": "compute", "gpu": "gpu1", "duration": "2 ms", "deps": ["f"]})"};
  const topo::Topology t = test_machine();
  std::string first;
  std::vector<std::size_t> order(tasks.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::mt19937 rng(7);
  for (int pass = 0; pass < 10; ++pass) {
    std::string text = R"({"tasks": [)";
    for (std::size_t i = 0; i < order.size(); ++i)
      text += (i ? "," : "") + tasks[order[i]];
    text += "]}";
    const TaskGraph g = parse(text, t);
    const engine::Names names{g.task_names, g.gpu_names, topo::channel_names(t)};
    const std::string json =
        report::to_json(engine::summarize(g.simulation, g.simulation.run(), names));
    if (pass == 0) first = json;
    EXPECT_EQ(json, first) << "pass " << pass;
    std::shuffle(order.begin(), order.end(), rng);
  }
}

TEST(TaskGraph, RejectsACycleNamingItsTasks) {
  EXPECT_EQ(error_of(R"({"tasks": [
      {"id": "a", "kind": "barrier", "deps": ["c"]},
      {"id": "b", "kind": "barrier", "deps": ["a"]},
      {"id": "c", "kind": "barrier", "deps": ["b"]}]})"),
            "graph.json: at /tasks/0/deps: task \"a\": dependency cycle: a -> b -> c -> a");
}

// A long cycle names its first 8 tasks and how many more: a 100,000-task cycle printed one
// error line of 989 KB.
TEST(TaskGraph, NamesALongCycleByItsFirstEightTasksAndACount) {
  EXPECT_EQ(error_of(R"({"tasks": [{"id": "t{k}", "for": {"k": "0..99999"}, "kind": "barrier",
      "deps": ["t{(k + 1) % 100000}"]}]})"),
            "graph.json: at /tasks/0/deps: task \"t{k}\" (k=0): dependency cycle: t0 -> t99999 "
            "-> t99998 -> t99997 -> t99996 -> t99995 -> t99994 -> t99993 -> ... and 99,992 more");
  // Eight tasks are shown whole; the ninth is counted.
  std::string nine = R"({"tasks": [)";
  for (int i = 0; i < 9; ++i) {
    nine += fmt::format(R"({}{{"id": "c{}", "kind": "barrier", "deps": ["c{}"]}})", i ? ", " : "",
                        i, (i + 1) % 9);
  }
  EXPECT_EQ(error_of(nine + "]}"),
            "graph.json: at /tasks/0/deps: task \"c0\": dependency cycle: c0 -> c8 -> c7 -> c6 -> "
            "c5 -> c4 -> c3 -> c2 -> ... and 1 more");
  std::string eight = R"({"tasks": [)";
  for (int i = 0; i < 8; ++i) {
    eight += fmt::format(R"({}{{"id": "c{}", "kind": "barrier", "deps": ["c{}"]}})", i ? ", " : "",
                         i, (i + 1) % 8);
  }
  EXPECT_EQ(error_of(eight + "]}"),
            "graph.json: at /tasks/0/deps: task \"c0\": dependency cycle: c0 -> c7 -> c6 -> c5 -> "
            "c4 -> c3 -> c2 -> c1 -> c0");
}

TEST(TaskGraph, RejectsASelfDependency) {
  EXPECT_EQ(error_of(R"({"tasks": [{"id": "a", "kind": "barrier", "deps": ["a"]}]})"),
            "graph.json: at /tasks/0/deps: task \"a\": dependency cycle: a -> a");
}

TEST(TaskGraph, RejectsAnUnknownEndpoint) {
  EXPECT_EQ(error_of(R"({"tasks": [{"id": "x", "kind": "transfer", "src": "gpu0",
      "dst": "gpu9", "bytes": "1 GB"}]})"),
            "graph.json: at /tasks/0/dst: task \"x\": unknown endpoint \"gpu9\": no such node "
            "in topology \"test-box\"");
}

// Sizes and durations whose results would not be finite, or absurd, are refused (issue 13,
// item 9): 1e308 GB is infinite in bytes; the bounds are 1 EB and 1e7 s (sim/core/units.hpp).
TEST(TaskGraph, RejectsSizesAndDurationsBeyondTheBounds) {
  EXPECT_EQ(error_of(R"({"tasks": [{"id": "x", "kind": "transfer", "src": "gpu0",
      "dst": "gpu1", "bytes": "1e308 GB"}]})"),
            "graph.json: at /tasks/0/bytes: size \"1e308 GB\" is beyond what "
            "linksim accepts: at most 1 EB (1e18 bytes)");
  EXPECT_EQ(error_of(R"({"tasks": [{"id": "x", "kind": "transfer", "src": "gpu0",
      "dst": "gpu1", "bytes": 9000000000000000000}]})"),
            "graph.json: at /tasks/0/bytes: task \"x\": bytes 9000000000000000000 is above the "
            "1e18 (1 EB) linksim accepts");
  // Whole numbers past 64 bits (read as doubles, or as unsigned past 2^63) are too large, not
  // "not an integer".
  EXPECT_EQ(error_of(R"({"tasks": [{"id": "x", "kind": "transfer", "src": "gpu0",
      "dst": "gpu1", "bytes": 123456789012345678901234567890}]})"),
            "graph.json: at /tasks/0/bytes: task \"x\": bytes 1.2345678901234568e+29 is above "
            "the 1e18 (1 EB) linksim accepts");
  EXPECT_EQ(error_of(R"({"tasks": [{"id": "x", "kind": "transfer", "src": "gpu0",
      "dst": "gpu1", "bytes": 18446744073709551615}]})"),
            "graph.json: at /tasks/0/bytes: task \"x\": bytes 18446744073709551615 is above the "
            "1e18 (1 EB) linksim accepts");
  EXPECT_EQ(error_of(R"({"tasks": [{"id": "x", "kind": "transfer", "src": "gpu0",
      "dst": "gpu1", "bytes": 10.5}]})"),
            "graph.json: at /tasks/0/bytes: task \"x\": bytes must be an integer or a size such "
            "as \"10 GB\"");
  EXPECT_EQ(error_of(R"({"tasks": [{"id": "c", "kind": "compute", "gpu": "gpu0",
      "duration": "1e308 s"}]})"),
            "graph.json: at /tasks/0/duration: time \"1e308 s\" is beyond what "
            "linksim accepts: at most 1e7 s (about 116 days)");
  EXPECT_EQ(error_of(R"({"tasks": [{"id": "x", "kind": "transfer", "src": "gpu0",
      "dst": "gpu1", "bytes": 1e309}]})"),
            "graph.json: at line 2, column 31: malformed JSON: number too large for a double: "
            "'1e309'");
}

TEST(TaskGraph, RejectsZeroAndNegativeSizes) {
  EXPECT_EQ(error_of(R"({"tasks": [{"id": "x", "kind": "transfer", "src": "gpu0",
      "dst": "gpu1", "bytes": 0}]})"),
            "graph.json: at /tasks/0/bytes: task \"x\": bytes must be positive, got 0");
  EXPECT_EQ(error_of(R"({"tasks": [{"id": "x", "kind": "transfer", "src": "gpu0",
      "dst": "gpu1", "bytes": "-5 GB"}]})"),
            "graph.json: at /tasks/0/bytes: task \"x\": bytes must be positive, got \"-5 GB\"");
}

TEST(TaskGraph, RejectsAnUnreachableDestination) {
  EXPECT_EQ(error_of(R"({"tasks": [{"id": "x", "kind": "transfer", "src": "gpu0",
      "dst": "gpu2", "bytes": "1 GB"}]})"),
            "graph.json: at /tasks/0/dst: task \"x\": no route from gpu0 to gpu2 in topology "
            "\"test-box\"");
}

TEST(TaskGraph, RejectsAMissingDependency) {
  EXPECT_EQ(error_of(R"({"tasks": [{"id": "a", "kind": "barrier", "deps": ["zz"]}]})"),
            "graph.json: at /tasks/0/deps/0: task \"a\": dependency \"zz\" is not a task id");
}

TEST(TaskGraph, RejectsADuplicateId) {
  EXPECT_EQ(error_of(R"({"tasks": [{"id": "a", "kind": "barrier"},
      {"id": "a", "kind": "barrier"}]})"),
            "graph.json: at /tasks/1/id: duplicate task id \"a\" (first at /tasks/0)");
}

TEST(TaskGraph, RejectsAnUnknownKindOrField) {
  EXPECT_EQ(error_of(R"({"tasks": [{"id": "a", "kind": "sleep"}]})"),
            "graph.json: at /tasks/0/kind: task \"a\": unknown kind \"sleep\"; expected one of: "
            "compute, transfer, delay, barrier, collective");
  EXPECT_EQ(error_of(R"({"tasks": [{"id": "a", "kind": "barrier", "gpu": "gpu0"}]})"),
            "graph.json: at /tasks/0/gpu: task \"a\": unknown field \"gpu\"; expected one of: "
            "id, kind, deps, note, for");
}

TEST(TaskGraph, RejectsComputeOnANonGpu) {
  EXPECT_EQ(error_of(R"({"tasks": [{"id": "a", "kind": "compute", "gpu": "cpu0",
      "duration": "1 ms"}]})"),
            "graph.json: at /tasks/0/gpu: task \"a\": \"cpu0\" is not a GPU");
}

// A collective task runs as the same request run alone would (sim/coll's simulate_collective),
// here an all-reduce of 1 GB over gpu0 and gpu1 on PCIe, with the link payload rates that
// collectives use.
TEST(TaskGraphCollective, RunsAsTheCollectiveAlone) {
  const topo::Topology t = test_machine();
  const TaskGraph g = parse_task_graph(
      parse_json_text(R"({"tasks": [{"id": "ar", "kind": "collective", "op": "all_reduce",
          "bytes": "1 GB", "gpus": ["gpu0", "gpu1"], "protocol": "Simple"}]})",
                      "graph.json"),
      "graph.json", t, LinkRates::payload);
  const coll::Communicator comm(t, {*t.find("gpu0"), *t.find("gpu1")});
  coll::Request r;
  r.op = coll::Op::all_reduce;
  r.size_bytes = 1e9;
  r.protocol = coll::Protocol::simple;
  const coll::Outcome alone = coll::simulate_collective(comm, r);
  const engine::Timeline tl = g.simulation.run();
  EXPECT_NEAR(tl.makespan_s, alone.time_s, 1e-12 * alone.time_s);
  // The last of its tasks carries its id; the others are numbered after it.
  EXPECT_EQ(g.task_names.back(), "ar");
  EXPECT_EQ(g.task_names.front(), "ar#0");
  ASSERT_EQ(g.comm_ops.size(), 1u);
  EXPECT_EQ(g.comm_ops[0].first_task, 0u);
  EXPECT_EQ(g.comm_ops[0].last_task, g.simulation.task_count() - 1);
  EXPECT_EQ(g.comm_ops[0].gpus, (std::vector<int>{0, 1}));
  // Communication on both GPUs is the whole collective: nothing else runs.
  const engine::Names names{g.task_names, g.gpu_names, channel_names(g, t)};
  ASSERT_EQ(names.channels.size(), g.simulation.channel_count());
  const engine::Summary s = engine::summarize(g.simulation, tl, names, g.comm_ops);
  EXPECT_DOUBLE_EQ(s.gpus[0].comm_s, tl.makespan_s);
  EXPECT_DOUBLE_EQ(s.gpus[1].comm_s, tl.makespan_s);
}

TEST(TaskGraphCollective, DependenciesWaitForItsEnd) {
  // 1 ms of compute on gpu0, then the all-reduce, then 2 ms on gpu1: 1 ms + collective + 2 ms.
  const topo::Topology t = test_machine();
  const TaskGraph g = parse(R"({"tasks": [
      {"id": "c0", "kind": "compute", "gpu": "gpu0", "duration": "1 ms"},
      {"id": "ar", "kind": "collective", "op": "all_gather", "bytes": 1000000,
       "gpus": ["gpu1", "gpu0"], "deps": ["c0"]},
      {"id": "c1", "kind": "compute", "gpu": "gpu1", "duration": "2 ms", "deps": ["ar"]}]})",
                            t);
  const coll::Communicator comm(t, {*t.find("gpu1"), *t.find("gpu0")});
  coll::Request r;
  r.op = coll::Op::all_gather;
  r.size_bytes = 1e6;
  // The graph's links run at line rate; the collective alone at payload rate: rebuild the
  // graph's expectation from its own tasks instead, end of c1 = start of c1 + 2 ms, start of
  // c1 = end of the collective, start of the collective = 1 ms.
  const engine::Timeline tl = g.simulation.run();
  const engine::TaskId c1 = static_cast<engine::TaskId>(g.simulation.task_count() - 1);
  const engine::TaskId ar = c1 - 1;
  EXPECT_EQ(g.task_names[c1], "c1");
  EXPECT_EQ(g.task_names[ar], "ar");
  EXPECT_DOUBLE_EQ(tl.task_start_s[1], 1e-3);  // the collective's first task, after c0
  EXPECT_DOUBLE_EQ(tl.task_start_s[c1], tl.task_end_s[ar]);
  EXPECT_DOUBLE_EQ(tl.makespan_s, tl.task_end_s[ar] + 2e-3);
  EXPECT_GT(tl.task_end_s[ar], 1e-3);
}

TEST(TaskGraphCollective, RejectsEveryBadField) {
  const auto collective = [](const std::string& fields) {
    return R"({"tasks": [{"id": "ar", "kind": "collective", )" + fields + "}]}";
  };
  const std::string ok_gpus = R"("gpus": ["gpu0", "gpu1"])";
  EXPECT_EQ(error_of(collective(R"("op": "allreduce", "bytes": 1, )" + ok_gpus)),
            "graph.json: at /tasks/0/op: task \"ar\": unknown op \"allreduce\"; expected one of: "
            "all_reduce, all_gather, reduce_scatter, broadcast, reduce, alltoall, sendrecv, "
            "scatter, gather, alltoallv, hypercube");
  EXPECT_NE(error_of(collective(R"("bytes": 1, )" + ok_gpus)).find("graph.json: at /tasks/0"),
            std::string::npos);
  EXPECT_EQ(error_of(collective(R"("op": "all_reduce", "bytes": 0, )" + ok_gpus)),
            "graph.json: at /tasks/0/bytes: task \"ar\": bytes must be positive, got 0");
  EXPECT_EQ(error_of(collective(R"("op": "all_reduce", "bytes": 1, "gpus": ["gpu0"])")),
            "graph.json: at /tasks/0/gpus: task \"ar\": a collective needs at least 2 GPUs, got 1");
  EXPECT_NE(error_of(collective(R"("op": "all_reduce", "bytes": 1, "gpus": "gpu0")"))
                .find("graph.json: at /tasks/0/gpus"),
            std::string::npos);
  EXPECT_EQ(error_of(collective(R"("op": "all_reduce", "bytes": 1, "gpus": ["gpu0", "gpu7"])")),
            "graph.json: at /tasks/0/gpus/1: task \"ar\": unknown endpoint \"gpu7\": no such node "
            "in topology \"test-box\"");
  EXPECT_EQ(error_of(collective(R"("op": "all_reduce", "bytes": 1, "gpus": ["gpu0", "cpu0"])")),
            "graph.json: at /tasks/0/gpus/1: task \"ar\": \"cpu0\" is not a GPU");
  EXPECT_EQ(error_of(collective(R"("op": "all_reduce", "bytes": 1, "gpus": ["gpu0", "gpu0"])")),
            "graph.json: at /tasks/0/gpus/1: task \"ar\": GPU \"gpu0\" is listed twice");
  EXPECT_NE(
      error_of(collective(R"("op": "all_reduce", "bytes": 1, "algorithm": "ring", )" + ok_gpus))
          .find("graph.json: at /tasks/0/algorithm: task \"ar\": "),
      std::string::npos);
  EXPECT_EQ(
      error_of(collective(R"("op": "all_reduce", "bytes": 1, "protocol": "simple", )" + ok_gpus)),
      "graph.json: at /tasks/0/protocol: task \"ar\": unknown protocol \"simple\"; expected one "
      "of LL, LL128, Simple (spelled exactly so)");
  EXPECT_EQ(error_of(collective(R"("op": "all_reduce", "bytes": 1, "src": "gpu0", )" + ok_gpus)),
            "graph.json: at /tasks/0/src: task \"ar\": unknown field \"src\"; expected one of: id, "
            "kind, deps, op, bytes, gpus, algorithm, protocol, note, for");
  // gpu2 is connected to nothing.
  EXPECT_NE(error_of(collective(R"("op": "all_reduce", "bytes": 1, "gpus": ["gpu0", "gpu2"])"))
                .find("graph.json: at /tasks/0/gpus: task \"ar\": these GPUs cannot all reach each "
                      "other: no route between"),
            std::string::npos);
  // NVLS needs NVSwitch multicast; these GPUs are on PCIe.
  EXPECT_NE(
      error_of(collective(R"("op": "all_reduce", "bytes": 1, "algorithm": "NVLS", )" + ok_gpus))
          .find("graph.json: at /tasks/0/algorithm: task \"ar\": no way to run all_reduce on these "
                "GPUs: "),
      std::string::npos);
}

TEST(TaskGraphSchema, CollectiveNamesAreTheRegistrys) {
  const Json schema = read_json_file(testing::source_dir() + "/docs/task-graph.schema.json");
  const Json* branch = nullptr;
  for (const Json& b : schema["definitions"]["task"]["oneOf"]) {
    if (b["properties"]["kind"].value("const", "") == "collective") branch = &b;
  }
  ASSERT_NE(branch, nullptr);
  const Json& p = (*branch)["properties"];
  EXPECT_EQ(p["op"]["enum"].get<std::vector<std::string>>(), coll::op_names());
  EXPECT_EQ(p["algorithm"]["enum"].get<std::vector<std::string>>(),
            coll::AlgorithmRegistry::builtin().names());
  EXPECT_EQ(p["protocol"]["enum"].get<std::vector<std::string>>(),
            (std::vector<std::string>{"LL", "LL128", "Simple"}));
}

TEST(TaskGraph, ShippedSeedExampleLoads) {
  const topo::Topology t = test_machine();
  const TaskGraph g =
      load_task_graph(testing::source_dir() + "/scenarios/graphs/seed-gradient-pcie.json", t);
  EXPECT_DOUBLE_EQ(g.simulation.run().makespan_s, 0.4125);  // 0.1 + 10e9 / 32e9
}

TEST(TaskGraph, PayloadRatesAreTheLinksPayload) {
  const topo::Topology t = test_machine();
  const TaskGraph g = load_task_graph(
      testing::source_dir() + "/scenarios/graphs/seed-gradient-pcie.json", t, LinkRates::payload);
  // The PCIe 4.0 x16 link carries 32 GB/s x 0.82 = 26.24 GB/s of payload, and at payload rates
  // the GPU-to-GPU transfer is NCCL's send (sim/coll/point_to_point.hpp): Ring's Simple hop
  // latency over PCI, 5.7 us, and the bytes over Simple's wire efficiency, 0.858270 x 68.0157 /
  // (68.0157 - 3.5) = 0.904831 (sim/coll/protocol.cpp: 370 / (450 x 0.958) all in, 1 MiB slices
  // at 370e9 / 24 B/s, 3.5 us of sync each):
  // 0.1 s + 5.7e-6 s + 10e9 / (0.904831 x 26.24e9) = 0.1 + 0.0000057 + 0.4211810 s = 0.5211867 s.
  const double simple_efficiency = testing::kSimpleCopyShare;
  EXPECT_NEAR(g.simulation.run().makespan_s, 0.1 + 5.7e-6 + 10e9 / (simple_efficiency * 26.24e9),
              1e-12);
}

TEST(TaskGraphSchema, ShippedExampleConformsAndBadShapesDoNot) {
  const Json schema = read_json_file(testing::source_dir() + "/docs/task-graph.schema.json");
  const Json seed =
      read_json_file(testing::source_dir() + "/scenarios/graphs/seed-gradient-pcie.json");
  EXPECT_TRUE(schema_violations(seed, schema).empty());
  EXPECT_TRUE(schema_violations(parse_json_text(kSeed, "seed"), schema).empty());
  // A barrier with a duration, a transfer with zero bytes, an unknown kind.
  for (const char* bad : {R"({"tasks": [{"id": "a", "kind": "barrier", "duration": "1 s"}]})",
                          R"({"tasks": [{"id": "a", "kind": "transfer", "src": "gpu0",
                              "dst": "gpu1", "bytes": 0}]})",
                          R"({"tasks": [{"id": "a", "kind": "sleep"}]})"}) {
    EXPECT_FALSE(schema_violations(parse_json_text(bad, "bad"), schema).empty()) << bad;
  }
}

TEST(RunGraphCli, SeedOnShippedMachine) {
  const std::string graph = testing::source_dir() + "/scenarios/graphs/seed-gradient-pcie.json";
  const auto r =
      testing::run_linksim("run-graph '" + graph + "' --topology a10-4x-pcie --format csv");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // 0.1 + 0.3125 plus the machine's PCIe hop latencies (well under a microsecond).
  EXPECT_NE(r.out.find("run,,makespan_s,0.4125"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("gpu,gpu0,comm_s,0.3125"), std::string::npos) << r.out;
}

TEST(RunGraphCli, ListsTasksOnlyWhenAskedOrSmall) {
  const std::string graph = testing::source_dir() + "/scenarios/graphs/seed-gradient-pcie.json";
  const std::string run = "run-graph '" + graph + "' --topology a10-4x-pcie";
  // auto: 2 tasks, at most 10,000, so listed.
  auto r = testing::run_linksim(run);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\ntasks\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("gradient  transfer"), std::string::npos) << r.out;
  r = testing::run_linksim(run + " --tasks none");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("tasks"), std::string::npos) << r.out;
  // 0.1 + 10e9 / 32e9 = 0.4125 s plus sub-microsecond hop latencies, to 3 digits.
  EXPECT_NE(r.out.find("makespan: 413 ms"), std::string::npos) << r.out;
  r = testing::run_linksim(run + " --tasks none --format csv");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("task,"), std::string::npos) << r.out;
  r = testing::run_linksim(run + " --tasks all --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"backward\""), std::string::npos) << r.out;
}

TEST(RunGraphCli, RefusesAnUnknownTasksChoice) {
  const std::string graph = testing::source_dir() + "/scenarios/graphs/seed-gradient-pcie.json";
  const auto r =
      testing::run_linksim("run-graph '" + graph + "' --topology a10-4x-pcie --tasks some");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--tasks"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(RunGraphCli, BadGraphExitsWithCode2) {
  testing::TempDir dir;
  const std::string graph =
      dir.write("g.json", R"({"tasks": [{"id": "a", "kind": "barrier", "deps": ["a"]}]})");
  const auto r = testing::run_linksim("run-graph '" + graph + "' --topology a10-4x-pcie");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("dependency cycle: a -> a"), std::string::npos) << r.err;
}

TEST(RunGraphCli, WritesTraceAndRefusesToOverwrite) {
  testing::TempDir dir;
  const std::string graph = testing::source_dir() + "/scenarios/graphs/seed-gradient-pcie.json";
  const std::string trace = dir.path() + "/trace.json";
  const std::string out = dir.path() + "/out.json";
  const std::string args = "run-graph '" + graph +
                           "' --topology a10-4x-pcie --format json --trace '" + trace + "' -o '" +
                           out + "'";
  auto r = testing::run_linksim(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json report = parse_json_text(testing::read_file(out), out);
  EXPECT_NEAR(report["makespan_s"].get<double>(), 0.4125, 1e-5);  // 0.1 + 0.3125 + latency
  const Json t = parse_json_text(testing::read_file(trace), trace);
  EXPECT_TRUE(t["traceEvents"].is_array());
  r = testing::run_linksim(args);
  EXPECT_EQ(r.exit_code, 2);  // exists, no --force
  r = testing::run_linksim(args + " --force");
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

}  // namespace
}  // namespace linksim::work
