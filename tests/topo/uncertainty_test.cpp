// A calibrated machine's ranges (issue #6): the loader reads them, rejects a range that does
// not hold its figure, and at_range_end() moves every ranged figure to one end.
#include "sim/topo/uncertainty.hpp"

#include <gtest/gtest.h>

#include "sim/core/error.hpp"
#include "sim/topo/loader.hpp"
#include "tests/support/temp_files.hpp"
#include "tests/support/thrown_message.hpp"

namespace linksim::topo {
namespace {

using linksim::testing::TempDir;

// Two GPUs behind one PCIe switch; the uplink (link 2) and the collective model carry ranges.
Json ranged_doc() {
  return Json::parse(R"({
    "title": "two GPUs, calibrated",
    "sources": ["hand-written test fixture"],
    "nodes": [
      {"id": "gpu", "kind": "gpu", "count": 2, "model": "A100-SXM4-80GB"},
      {"id": "cpu0", "kind": "cpu", "vendor": "amd"},
      {"id": "sw", "kind": "pcie_switch"}
    ],
    "links": [
      {"for": {"g": "0..1"}, "a": "gpu{g}", "b": "sw", "kind": "pcie", "generation": 4},
      {"a": "sw", "b": "cpu0", "kind": "pcie", "generation": 4,
       "bandwidth": "10 GB/s", "bandwidth_range": ["8 GB/s", "12 GB/s"],
       "latency": "2 us", "latency_range": ["1 us", "3 us"]}
    ],
    "collective_calibration": {
      "latency_scale": 2, "latency_scale_range": [1.5, 2.5], "bandwidth_scale": 1,
      "ll128_scale": 0.8, "ll128_scale_range": [0.6, 1.1],
      "by_op": {"all_reduce": {"bandwidth_scale": 0.8, "bandwidth_scale_range": [0.7, 0.9]}}
    },
    "host_launch": {"per_gpu": "5 us", "range": ["4 us", "6 us"], "source": "test"}
  })");
}

std::string load_error(const TempDir& dir, const Json& doc) {
  return testing::thrown_message<InputError>(
      [&] { load_topology(dir.write("machine.json", doc.dump(2))); });
}

TEST(Uncertainty, LoaderReadsRanges) {
  const Topology t = parse_topology(ranged_doc(), "m.json");
  ASSERT_TRUE(t.link(2).bandwidth_range_Bps.has_value());
  EXPECT_DOUBLE_EQ(t.link(2).bandwidth_range_Bps->lo, 8e9);
  EXPECT_DOUBLE_EQ(t.link(2).bandwidth_range_Bps->hi, 12e9);
  EXPECT_DOUBLE_EQ(t.link(2).latency_range_s->lo, 1e-6);
  EXPECT_DOUBLE_EQ(t.link(2).latency_range_s->hi, 3e-6);
  EXPECT_FALSE(t.link(0).bandwidth_range_Bps.has_value());
  EXPECT_DOUBLE_EQ(t.collective.all.latency_range->lo, 1.5);
  EXPECT_FALSE(t.collective.all.bandwidth_range.has_value());
  EXPECT_DOUBLE_EQ(t.collective.by_op.at(CollectiveOp::all_reduce).bandwidth_range->hi, 0.9);
  EXPECT_DOUBLE_EQ(t.collective.all.ll128, 0.8);
  EXPECT_DOUBLE_EQ(t.collective.all.ll, 1.0);  // not given
  EXPECT_DOUBLE_EQ(t.host_launch.per_gpu_s, 5e-6);
  EXPECT_DOUBLE_EQ(t.host_launch.range_s->hi, 6e-6);
  EXPECT_TRUE(has_ranges(t));
}

TEST(Uncertainty, RangeEndsMoveOnlyRangedFigures) {
  const Topology t = parse_topology(ranged_doc(), "m.json");
  const Topology slow = at_range_end(t, RangeEnd::slow);
  const Topology fast = at_range_end(t, RangeEnd::fast);
  // Slow: low bandwidth, high latency, high latency scale, low bandwidth scale.
  EXPECT_DOUBLE_EQ(slow.link(2).bandwidth_Bps, 8e9);
  EXPECT_DOUBLE_EQ(slow.link(2).latency_s, 3e-6);
  EXPECT_DOUBLE_EQ(slow.collective.all.latency, 2.5);
  EXPECT_DOUBLE_EQ(slow.collective.by_op.at(CollectiveOp::all_reduce).bandwidth, 0.7);
  EXPECT_DOUBLE_EQ(slow.collective.all.ll128, 0.6);
  EXPECT_DOUBLE_EQ(slow.host_launch.per_gpu_s, 6e-6);
  EXPECT_DOUBLE_EQ(fast.collective.all.ll128, 1.1);
  EXPECT_DOUBLE_EQ(fast.host_launch.per_gpu_s, 4e-6);
  EXPECT_DOUBLE_EQ(fast.link(2).bandwidth_Bps, 12e9);
  EXPECT_DOUBLE_EQ(fast.link(2).latency_s, 1e-6);
  EXPECT_DOUBLE_EQ(fast.collective.all.latency, 1.5);
  EXPECT_DOUBLE_EQ(fast.collective.by_op.at(CollectiveOp::all_reduce).bandwidth, 0.9);
  // Unranged figures stay: the GPU links' PCIe 4.0 x16 default of 2 GB/s x 16 = 32 GB/s, the
  // all-over bandwidth scale 1, and all_reduce's latency scale (1: by_op does not inherit).
  EXPECT_DOUBLE_EQ(slow.link(0).bandwidth_Bps, 32e9);
  EXPECT_DOUBLE_EQ(fast.link(1).bandwidth_Bps, 32e9);
  EXPECT_DOUBLE_EQ(slow.collective.all.bandwidth, 1.0);
  EXPECT_DOUBLE_EQ(slow.collective.by_op.at(CollectiveOp::all_reduce).latency, 1.0);
}

TEST(Uncertainty, AMachineWithoutRangesHasNone) {
  Json doc = ranged_doc();
  doc.erase("collective_calibration");
  doc.erase("host_launch");
  doc["links"][1].erase("bandwidth_range");
  doc["links"][1].erase("latency_range");
  EXPECT_FALSE(has_ranges(parse_topology(doc, "m.json")));
}

TEST(Uncertainty, ARangeThatMissesItsFigureIsRejected) {
  TempDir dir;
  const std::string file = dir.path() + "/machine.json";
  Json doc = ranged_doc();
  doc["links"][1]["bandwidth_range"] = {"11 GB/s", "12 GB/s"};
  EXPECT_EQ(load_error(dir, doc),
            file +
                ": at /links/1/bandwidth_range: expected [low, high] with low <= the link's "
                "bandwidth <= high");
  doc = ranged_doc();
  doc["collective_calibration"]["latency_scale_range"] = {1.0};
  EXPECT_EQ(load_error(dir, doc),
            file +
                ": at /collective_calibration/latency_scale_range: expected [low, high] "
                "around latency_scale (2)");
}

// by_op keys are operations: a misspelt one is an error, not a correction silently unused.
TEST(Uncertainty, AnUnknownOperationInByOpIsRejected) {
  TempDir dir;
  Json doc = ranged_doc();
  doc["collective_calibration"]["by_op"]["allreduce"] = {{"bandwidth_scale", 0.9}};
  EXPECT_EQ(load_error(dir, doc),
            dir.path() +
                "/machine.json: at /collective_calibration/by_op/allreduce: \"allreduce\" is not "
                "a collective operation: expected one of all_reduce, all_gather, reduce_scatter, "
                "broadcast, reduce, alltoall, sendrecv, scatter, gather, alltoallv, hypercube");
}

}  // namespace
}  // namespace linksim::topo
