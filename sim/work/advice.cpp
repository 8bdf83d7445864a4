#include "sim/work/advice.hpp"

#include <fmt/format.h>

#include "sim/work/job_sim.hpp"

namespace linksim::work {
namespace {

// Thresholds on the exposed-communication share of a step.
constexpr double kCommBound = 0.30;  // most of the time the GPUs wait: the seed's PCIe case
constexpr double kHidden = 0.10;     // communication barely shows

bool over_pcie(const JobResult& r) {
  for (const auto& b : r.bottlenecks) {
    if (b.find("PCIe") != std::string::npos) return true;
  }
  return false;
}

}  // namespace

std::vector<std::string> advise(const JobResult& r, const Scenario& sc) {
  std::vector<std::string> out;
  const double pct = 100 * r.comm_share;
  const bool training = sc.gradient_sync || sc.job.kind == JobKind::training;
  if (training && r.comm_share >= kCommBound) {
    if (over_pcie(r)) {
      out.push_back(fmt::format(
          "Communication-bound: the GPUs wait on communication for {:.0f}% of each step, on PCIe "
          "links. Data-parallel training wants NVLink (or NVSwitch); here the compute idles.",
          pct));
    } else {
      out.push_back(fmt::format(
          "Communication-bound even over NVLink: the GPUs wait {:.0f}% of each step. Overlap the "
          "gradient synchronisation with the backward pass (buckets), or pick a fabric with more "
          "bandwidth per GPU.",
          pct));
    }
  } else if (training && r.comm_share < kHidden) {
    out.push_back(
        fmt::format("Communication is mostly hidden or small ({:.0f}% of the step): "
                    "faster links would gain at most that much.",
                    pct));
  }
  if (!training && r.comm_share < kCommBound) {
    out.push_back(
        fmt::format("Inference spends {:.0f}% of its time on communication: {} is "
                    "acceptable unless latency is what you sell.",
                    pct, over_pcie(r) ? "PCIe" : "this interconnect"));
  } else if (!training) {
    out.push_back(
        fmt::format("Inference is communication-bound ({:.0f}% of the time): the "
                    "per-layer exchanges dominate; NVLink or fewer tensor-parallel "
                    "ranks would cut latency.",
                    pct));
  }
  if (r.idle_s > 0.2 * r.step_s && sc.plan.pipeline > 1) {
    out.push_back(
        fmt::format("Pipeline bubbles and waits leave the GPUs idle {:.0f}% of the step: "
                    "more micro-batches shrink the 1F1B bubble.",
                    100 * r.idle_s / r.step_s));
  }
  return out;
}

}  // namespace linksim::work
