// Each advice rule (sim/work/advice.cpp) on a hand-made result: said where its numbers and the
// job's kind support it, and not otherwise.
#include "sim/work/advice.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/work/job_result.hpp"
#include "sim/work/scenario.hpp"

namespace linksim::work {
namespace {

Scenario scenario_of(JobKind kind, int pipeline, int global_batch = 8) {
  Scenario sc;
  sc.job.kind = kind;
  sc.job.global_batch = global_batch;
  sc.plan.pipeline = pipeline;
  return sc;
}

// A 1 s step with `comm_share` of it exposed communication and `idle_s` idle.
JobResult result_of(double comm_share, double idle_s, bool pcie_bottleneck) {
  JobResult r;
  r.step_s = 1.0;
  r.comm_share = comm_share;
  r.exposed_comm_s = comm_share;
  r.idle_s = idle_s;
  if (pcie_bottleneck)
    r.bottlenecks.push_back("gpu0->plx0 (PCIe 4.0 x16): saturated 40% of the step");
  return r;
}

bool says(const std::vector<std::string>& advice, const std::string& words) {
  for (const auto& a : advice) {
    if (a.find(words) != std::string::npos) return true;
  }
  return false;
}

TEST(Advice, InferenceUnderAFifthOnCommunicationIsAcceptable) {
  // 19% < 20%: the "acceptable" line, naming PCIe.
  const auto a = advise(result_of(0.19, 0, true), scenario_of(JobKind::decode, 1));
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0],
            "Inference spends 19% of its time on communication: PCIe is acceptable unless latency "
            "is what you sell.");
}

TEST(Advice, InferenceOverAFifthOnCommunicationIsNeverCalledAcceptable) {
  // 24% (batch-1 decode over PCIe, issue 39): between a fifth and the communication-bound 30%.
  const auto a = advise(result_of(0.24, 0, true), scenario_of(JobKind::decode, 1, 1));
  ASSERT_EQ(a.size(), 1u);
  EXPECT_FALSE(says(a, "acceptable")) << a[0];
  EXPECT_EQ(a[0],
            "Inference spends 24% of its time on communication, on PCIe links: over a fifth of "
            "every token's latency; NVLink (or NVSwitch) or fewer tensor-parallel ranks would cut "
            "it.");
}

TEST(Advice, InferenceCommunicationBoundFromThirtyPercent) {
  const auto a = advise(result_of(0.30, 0, false), scenario_of(JobKind::prefill, 1));
  ASSERT_EQ(a.size(), 1u);
  EXPECT_TRUE(says(a, "Inference is communication-bound (30% of the time)")) << a[0];
}

TEST(Advice, SingleRequestPrefillIsNotToldAboutMicroBatches) {
  // PP 2, idle 45% of the step: a forward pass waits for the other stage; no 1F1B advice.
  const auto a = advise(result_of(0.05, 0.45, false), scenario_of(JobKind::prefill, 2, 1));
  EXPECT_FALSE(says(a, "micro-batches"));
  EXPECT_FALSE(says(a, "1F1B"));
  EXPECT_TRUE(says(a,
                   "Each GPU idles 45% of the time while the other pipeline stages compute: a "
                   "single request passes through the stages in turn."));
}

TEST(Advice, TrainingPipelineBubbleAdviceNamesInterleavingUntilItIsOn) {
  Scenario sc = scenario_of(JobKind::training, 4);
  // Idle 25% > 20%: the bubble line; exposed communication 15% is neither bound nor hidden.
  auto a = advise(result_of(0.15, 0.25, false), sc);
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0],
            "Pipeline bubbles and waits leave the GPUs idle 25% of the step: more micro-batches "
            "or interleaved 1F1B (plan.virtual_stages) shrink the 1F1B bubble.");
  sc.plan.virtual_stages = 2;
  a = advise(result_of(0.15, 0.25, false), sc);
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0],
            "Pipeline bubbles and waits leave the GPUs idle 25% of the step: more micro-batches "
            "shrink the 1F1B bubble.");
}

TEST(Advice, NoBubbleAdviceWithoutAPipelineOrUnderAFifthIdle) {
  EXPECT_TRUE(advise(result_of(0.15, 0.5, false), scenario_of(JobKind::training, 1)).empty());
  EXPECT_TRUE(advise(result_of(0.15, 0.2, false), scenario_of(JobKind::training, 4)).empty());
}

TEST(Advice, TrainingCommunicationRules) {
  const Scenario sc = scenario_of(JobKind::training, 1);
  auto a = advise(result_of(0.40, 0, true), sc);
  ASSERT_EQ(a.size(), 1u);
  EXPECT_TRUE(says(a,
                   "Communication-bound: the GPUs wait on communication for 40% of each step, "
                   "on PCIe links."));
  a = advise(result_of(0.40, 0, false), sc);
  ASSERT_EQ(a.size(), 1u);
  EXPECT_TRUE(says(a, "Communication-bound even over NVLink: the GPUs wait 40% of each step."));
  a = advise(result_of(0.05, 0, false), sc);
  ASSERT_EQ(a.size(), 1u);
  EXPECT_TRUE(says(a, "Communication is mostly hidden or small (5% of the step)"));
}

}  // namespace
}  // namespace linksim::work
