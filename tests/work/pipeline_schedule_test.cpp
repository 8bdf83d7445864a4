// The 1F1B order of sim/work/pipeline_schedule.*, worked by hand.
#include "sim/work/pipeline_schedule.hpp"

#include <gtest/gtest.h>

#include <string>

namespace linksim::work {
namespace {

// "s0F1" is stage 0's forward of micro-batch 1, "s1B0" stage 1's backward of micro-batch 0.
std::string text(const std::vector<PipelineOp>& ops) {
  std::string out;
  for (const auto& op : ops) {
    out += (out.empty() ? "" : " ") + std::string("s") + std::to_string(op.stage) +
           (op.forward ? "F" : "B") + std::to_string(op.micro_batch);
  }
  return out;
}

TEST(PipelineSchedule, OneFOneBWarmsUpWithAForwardPerLaterStageThenAlternates) {
  // 3 stages, 4 micro-batches. Stage s warms up with min(3 - s - 1, 4) forwards: 2, 1, 0;
  // then forward warm+i and backward i for i < 4 - warm; then the remaining backwards.
  const auto ops = one_f_one_b(3, 4, true);
  ASSERT_EQ(ops.size(), 3u);
  EXPECT_EQ(text(ops[0]), "s0F0 s0F1 s0F2 s0B0 s0F3 s0B1 s0B2 s0B3");
  EXPECT_EQ(text(ops[1]), "s1F0 s1F1 s1B0 s1F2 s1B1 s1F3 s1B2 s1B3");
  EXPECT_EQ(text(ops[2]), "s2F0 s2B0 s2F1 s2B1 s2F2 s2B2 s2F3 s2B3");
}

TEST(PipelineSchedule, InferenceRunsForwardsOnly) {
  const auto ops = one_f_one_b(2, 3, false);
  EXPECT_EQ(text(ops[0]), "s0F0 s0F1 s0F2");
  EXPECT_EQ(text(ops[1]), "s1F0 s1F1 s1F2");
}

TEST(PipelineSchedule, CreationOrderPlacesEachOpAfterTheNeighbourItTakesInputFrom) {
  // 2 stages, 3 micro-batches: stage 0 runs F0 F1 B0 F2 B1 B2, stage 1 F0 B0 F1 B1 F2 B2.
  // Sweep 1: stage 0 places F0 F1 and stops at B0 (stage 1's B0 not placed); stage 1 places
  // F0 B0 F1 B1 and stops at F2 (stage 0's F2 not placed). Sweep 2: stage 0 places B0 F2 B1
  // and stops at B2; stage 1 places F2 B2. Sweep 3: stage 0 places B2.
  EXPECT_EQ(text(creation_order(one_f_one_b(2, 3, true), 3)),
            "s0F0 s0F1 s1F0 s1B0 s1F1 s1B1 s0B0 s0F2 s0B1 s1F2 s1B2 s0B2");
}

}  // namespace
}  // namespace linksim::work
