// The Chrome trace of a 2-node training job (sim/report/chrome_trace.hpp on simulate_job's
// run): it follows the Trace Event Format's rules, names every compute slice by layer and
// operation, labels communication with its collective's algorithm, protocol and channels, and
// names on each collective the link that bound it: NVSwitch links inside a node for tensor
// parallelism, the network for the data-parallel all-reduce across the two nodes.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "sim/core/json_view.hpp"
#include "sim/report/chrome_trace.hpp"
#include "sim/topo/loader.hpp"
#include "sim/work/job_sim.hpp"
#include "tests/support/temp_files.hpp"
#include "tests/support/trace_event_rules.hpp"

namespace linksim::work {
namespace {

using testing::TempDir;

// A 2-layer model, TP 8 inside each p4d node and DP 2 across them: one micro-batch each.
std::string two_node_trace() {
  TempDir dir;
  dir.write("m.json", R"({"title": "m", "layers": 2, "hidden": 2048, "heads": 16,
    "ffn_hidden": 8192, "vocab": 1000})");
  const Scenario sc = load_scenario(
      dir.write("s.json", R"({"title": "t", "topologies": ["aws-p4d-x2"], "model": "m.json",
        "compute": {"efficiency": 0.5},
        "job": {"kind": "training", "global_batch": 2, "sequence_length": 512},
        "plan": {"data": 2, "tensor": 8}})"));
  JobOptions options;
  options.record_channel_intervals = true;
  options.name_tasks = true;
  const JobResult r =
      simulate_job(topo::load_topology("aws-p4d-x2"), load_model(sc.model), sc, options);
  return report::to_chrome_trace(*r.simulation, *r.timeline, *r.names);
}

TEST(JobTrace, TwoNodeJobFollowsTheFormatAndExplainsItself) {
  const std::string text = two_node_trace();
  EXPECT_EQ(text, two_node_trace());  // deterministic, byte for byte
  const Json j = parse_json_text(text, "trace");
  const auto problems = testing::trace_event_problems(j);
  ASSERT_TRUE(problems.empty()) << problems.size() << " problems, first: " << problems.front();

  int links_pid = -1;
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "process_name" && e["args"]["name"] == "links") {
      links_pid = e["pid"];
    }
  }
  std::set<std::string> compute_names;
  std::set<std::string> link_threads;
  std::size_t flows = 0;
  std::size_t counters = 0;
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] == "X" && e["cat"] == "compute") compute_names.insert(e["name"]);
    if (e["ph"] == "M" && e["name"] == "thread_name" && e["pid"] == links_pid) {
      link_threads.insert(e["args"]["name"]);
    }
    if (e["ph"] == "s") ++flows;
    if (e["ph"] == "C") ++counters;
    if (e["ph"] == "X" && e["cat"] == "comm") {
      // Every transfer says what moved, how fast, over what, and for which collective.
      for (const char* key : {"bytes", "rate", "rate_Bps", "link", "group", "operation"})
        EXPECT_TRUE(e["args"].contains(key)) << key << " missing in " << e.dump();
    }
  }
  EXPECT_EQ(compute_names,
            (std::set<std::string>{
                "embedding fwd", "embedding bwd", "layer 0 attention fwd", "layer 0 mlp fwd",
                "layer 1 attention fwd", "layer 1 mlp fwd", "layer 0 attention bwd",
                "layer 0 mlp bwd", "layer 1 attention bwd", "layer 1 mlp bwd",
                "LM head and loss fwd", "LM head and loss bwd", "optimizer step"}));
  EXPECT_GT(flows, 0u);
  EXPECT_GT(counters, 0u);

  // Each collective names the link that bound it, one the links process draws: for TP, a link
  // inside a node; for the gradients' all-reduce across the nodes, one on the way out of it.
  std::size_t tp = 0;
  std::size_t dp = 0;
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] != "X" || e["cat"] != "operation") continue;
    const Json& a = e["args"];
    ASSERT_TRUE(a.contains("bottleneck_link")) << e.dump();
    const std::string link = a["bottleneck_link"];
    EXPECT_TRUE(link_threads.count(link)) << link;
    EXPECT_TRUE(a.contains("algorithm") && a.contains("protocol") && a.contains("channels"));
    if (a["group"] == "TP") {
      ++tp;
      EXPECT_NE(link.find("nvswitch"), std::string::npos) << link;
    } else if (a["group"] == "DP") {
      ++dp;
      EXPECT_EQ(link.find("nvswitch"), std::string::npos) << link;
    }
  }
  EXPECT_GT(tp, 0u);
  EXPECT_GT(dp, 0u);
}

}  // namespace
}  // namespace linksim::work
