// A property of the step split (sim/engine/summary.hpp, sim/work/job_sim.*): over every shipped
// scenario on every machine it names, making every link ten times faster never increases the
// exposed communication reported (issue 15: faster links showed more communication). With the
// old split (transfers only, collectives' latency phases as idle) the second test fails on
// seed-70b-inference-tp8 on dgx-a100: 638 us exposed, 1.85 ms with the faster links.
#include <gtest/gtest.h>

#include "sim/topo/loader.hpp"
#include "sim/work/gradient_sync_sim.hpp"
#include "sim/work/job_sim.hpp"
#include "sim/work/model.hpp"

namespace linksim::work {
namespace {

// Every link `bandwidth_factor` times the bandwidth, `latency_factor` times the latency.
topo::Topology with_links_faster(topo::Topology machine, double bandwidth_factor,
                                 double latency_factor) {
  for (topo::LinkId l = 0; l < machine.links().size(); ++l) {
    const topo::Link& link = machine.link(l);
    machine.set_link_figures(l, link.bandwidth_Bps * bandwidth_factor,
                             link.latency_s * latency_factor);
  }
  return machine;
}

// The exposed communication of a scenario on a machine, or nullopt when it does not fit.
std::optional<double> exposed_s(const topo::Topology& machine, const Scenario& sc) {
  if (sc.gradient_sync) return simulate_gradient_sync(machine, sc).realistic.exposed_comm_s;
  if (sc.job.kind == JobKind::serving) return std::nullopt;  // latencies, not a step split
  try {
    return simulate_job(machine, load_model(sc.model), sc).exposed_comm_s;
  } catch (const DoesNotFit&) {
    return std::nullopt;
  }
}

// Over every shipped scenario on every machine it names that the job fits.
void expect_never_more_exposed(double bandwidth_factor, double latency_factor) {
  int checked = 0;
  for (const std::string& file : shipped_scenario_files()) {
    const Scenario sc = load_scenario(file);
    for (const std::string& name : sc.topologies) {
      const topo::Topology machine = topo::load_topology(name);
      const auto slow = exposed_s(machine, sc);
      if (!slow) continue;
      const auto fast = exposed_s(with_links_faster(machine, bandwidth_factor, latency_factor), sc);
      ASSERT_TRUE(fast) << file << " on " << name << " fits only on slower links";
      // Equal when nothing was exposed; a relative 1e-9 for rounding.
      EXPECT_LE(*fast, *slow * (1 + 1e-9)) << file << " on " << name;
      ++checked;
    }
  }
  // The shipped scenarios name at least this many machines the job fits on.
  EXPECT_GE(checked, 12);
}

TEST(JobSimFasterLinks, TenTimesTheBandwidthNeverShowsMoreCommunication) {
  expect_never_more_exposed(10, 1);
}

TEST(JobSimFasterLinks, TenTimesTheBandwidthAndATenthOfTheLatencyNeverShowMoreCommunication) {
  expect_never_more_exposed(10, 0.1);
}

}  // namespace
}  // namespace linksim::work
