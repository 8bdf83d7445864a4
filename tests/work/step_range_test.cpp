// Step-time ranges (sim/work/job_step_range.hpp, sim/work/model_uncertainty.hpp): a property
// test that the range holds the point estimate and widens as the inputs' ranges widen.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "sim/topo/cluster_loader.hpp"
#include "sim/topo/loader.hpp"
#include "sim/work/job_sim.hpp"
#include "sim/work/job_step_range.hpp"
#include "sim/work/model_uncertainty.hpp"
#include "tests/support/temp_files.hpp"
#include "tests/support/tiny_model.hpp"

namespace linksim::work {
namespace {

using linksim::testing::TempDir;

Scenario tiny_training(const TempDir& dir, const std::string& plan) {
  return load_scenario(testing::write_tiny_scenario(
      dir, "dgx-h100", R"({"kind": "training", "global_batch": 16, "sequence_length": 512})",
      plan));
}

// lo <= inner.lo <= point <= inner.hi <= hi, strictly wider at both ends.
void expect_nested(const topo::Range& outer, const topo::Range& inner, double point) {
  EXPECT_LE(inner.lo, point);
  EXPECT_GE(inner.hi, point);
  EXPECT_LT(outer.lo, inner.lo);
  EXPECT_GT(outer.hi, inner.hi);
}

TEST(StepRange, HoldsThePointAndWidensWithTheComputeRange) {
  const TempDir dir;
  for (const std::string plan :
       {R"({"data": 8})", R"({"tensor": 4, "data": 2})",
        R"({"tensor": 2, "pipeline": 2, "data": 2, "micro_batches": 4})"}) {
    const Scenario sc = tiny_training(dir, plan);
    const ModelSpec model = load_model(sc.model);
    const topo::Topology machine = topo::load_topology("dgx-h100");
    const double point = simulate_job(machine, model, sc).step_s;
    const topo::Range narrow = job_step_range_s(machine, model, sc, {0.95, 1.01});
    const topo::Range wide = job_step_range_s(machine, model, sc, {0.8, 1.05});
    SCOPED_TRACE(plan);
    expect_nested(wide, narrow, point);
  }
}

TEST(StepRange, WidensWithAFittedNetworkRangeAndUsesTheStatedOneOtherwise) {
  const TempDir dir;
  const Scenario sc = tiny_training(dir, R"({"data": 16})");
  const ModelSpec model = load_model(sc.model);
  // Two hosts, so the data-parallel all-reduce crosses the network.
  topo::Topology narrow_fit = topo::scale_out(topo::load_topology("dgx-h100"), 2);
  const double point = simulate_job(narrow_fit, model, sc).step_s;
  topo::Topology wide_fit = narrow_fit;
  narrow_fit.collective.all.bandwidth_range = topo::Range{0.99, 1.01};
  narrow_fit.collective.all.latency_range = topo::Range{0.99, 1.01};
  wide_fit.collective.all.bandwidth_range = topo::Range{0.7, 1.3};
  wide_fit.collective.all.latency_range = topo::Range{0.7, 1.3};
  const topo::Range exact_compute{1, 1};
  expect_nested(job_step_range_s(wide_fit, model, sc, exact_compute),
                job_step_range_s(narrow_fit, model, sc, exact_compute), point);
  // An uncalibrated machine gets the stated across-hosts row: bandwidth 0.85 to 1.15 of its
  // scale, latency the inverse.
  const topo::Topology stated =
      with_stated_network_ranges(topo::scale_out(topo::load_topology("dgx-h100"), 2));
  ASSERT_TRUE(stated.collective.all.bandwidth_range);
  EXPECT_DOUBLE_EQ(stated.collective.all.bandwidth_range->lo, 0.85);
  EXPECT_DOUBLE_EQ(stated.collective.all.bandwidth_range->hi, 1.15);
  EXPECT_DOUBLE_EQ(stated.collective.all.latency_range->lo, 1 / 1.15);
  EXPECT_DOUBLE_EQ(stated.collective.all.latency_range->hi, 1 / 0.85);
  // One host: the one-host row.
  const topo::Topology one = with_stated_network_ranges(topo::load_topology("dgx-h100"));
  EXPECT_DOUBLE_EQ(one.collective.all.bandwidth_range->lo, 0.94);
  // A calibrated machine keeps its fitted ranges.
  EXPECT_DOUBLE_EQ(with_stated_network_ranges(wide_fit).collective.all.bandwidth_range->lo, 0.7);
}

TEST(StepRange, TheReportPrintsItAndTheJsonCarriesIt) {
  const auto r = testing::run_linksim("run default -t dgx-h100 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out).at(0);
  const double step = j.at("step_s").get<double>();
  EXPECT_LT(j.at("step_range_s").at(0).get<double>(), step);
  EXPECT_GT(j.at("step_range_s").at(1).get<double>(), step);
  // --no-range: the point estimate alone, the same to the bit.
  const auto bare = testing::run_linksim("run default -t dgx-h100 --format json --no-range");
  ASSERT_EQ(bare.exit_code, 0) << bare.err;
  const auto b = nlohmann::json::parse(bare.out).at(0);
  EXPECT_FALSE(b.contains("step_range_s"));
  EXPECT_EQ(b.at("step_s").get<double>(), step);
}

}  // namespace
}  // namespace linksim::work
