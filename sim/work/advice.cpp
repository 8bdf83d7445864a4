#include "sim/work/advice.hpp"

#include <fmt/format.h>

#include "sim/work/job_sim.hpp"

namespace linksim::work {
namespace {

// Thresholds on the exposed-communication share of a step.
constexpr double kCommBound = 0.30;  // most of the time the GPUs wait: the seed's PCIe case
constexpr double kHidden = 0.10;     // communication barely shows
// Inference: beyond a fifth of the time, communication is a large part of what a user waits for.
constexpr double kAcceptable = 0.20;
// A fifth of the step idle in a pipeline is worth a change of schedule or plan.
constexpr double kIdle = 0.20;

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
  if (!training && r.comm_share < kAcceptable) {
    out.push_back(
        fmt::format("Inference spends {:.0f}% of its time on communication: {} is "
                    "acceptable unless latency is what you sell.",
                    pct, over_pcie(r) ? "PCIe" : "this interconnect"));
  } else if (!training && r.comm_share < kCommBound) {
    out.push_back(fmt::format(
        "Inference spends {:.0f}% of its time on communication{}: over a fifth of every "
        "token's latency; {} fewer tensor-parallel ranks would cut it.",
        pct, over_pcie(r) ? ", on PCIe links" : "",
        over_pcie(r) ? "NVLink (or NVSwitch) or" : "more bandwidth per GPU or"));
  } else if (!training) {
    out.push_back(
        fmt::format("Inference is communication-bound ({:.0f}% of the time): the "
                    "per-layer exchanges dominate; NVLink or fewer tensor-parallel "
                    "ranks would cut latency.",
                    pct));
  }
  if (r.step_s > 0 && r.idle_s > kIdle * r.step_s && sc.plan.pipeline > 1) {
    const double idle_pct = 100 * r.idle_s / r.step_s;
    if (training) {
      // 1F1B's bubble is (stages - 1) / (micro-batches + stages - 1) of the step; interleaving
      // over v chunks divides it by v (Narayanan et al., SC'21, section 2.2).
      out.push_back(fmt::format(
          "Pipeline bubbles and waits leave the GPUs idle {:.0f}% of the step: more "
          "micro-batches{} shrink the 1F1B bubble.",
          idle_pct,
          sc.plan.virtual_stages > 1 ? "" : " or interleaved 1F1B (plan.virtual_stages)"));
    } else {
      // A forward pass crosses the stages one after another: no schedule fills that.
      out.push_back(fmt::format(
          "Each GPU idles {:.0f}% of the time while the other pipeline stages compute: {} "
          "through the stages in turn. Fewer stages (more tensor parallelism) cut the latency; "
          "more requests at once (a larger batch) use the idle time.",
          idle_pct, sc.job.global_batch == 1 ? "a single request passes" : "each batch passes"));
    }
  }
  return out;
}

}  // namespace linksim::work
