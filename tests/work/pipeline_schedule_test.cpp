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

// "F3.1" is the forward of micro-batch 3 by the stage's chunk 1, "B0.0" the backward of
// micro-batch 0 by its chunk 0.
std::string chunk_text(const std::vector<PipelineOp>& ops) {
  std::string out;
  for (const auto& op : ops) {
    out += (out.empty() ? "" : " ") + std::string(op.forward ? "F" : "B") +
           std::to_string(op.micro_batch) + "." + std::to_string(op.chunk);
  }
  return out;
}

TEST(PipelineSchedule, InterleavedOneFOneBRunsMegatronsOrderPerRank) {
  // P = 4 stages, v = 2 chunks, m = 8 micro-batches, as Megatron-LM's
  // megatron/core/pipeline_parallel/schedules.py runs them
  // (forward_backward_pipelining_with_interleaving, microbatch_group_size_per_vp_stage = P):
  // get_schedule_table gives forward k the micro-batch and chunk
  //   k        0 1 2 3 4 5 6 7 | 8 9 10 11 12 13 14 15
  //   mb       0 1 2 3 0 1 2 3 | 4 5  6  7  4  5  6  7
  //   chunk    0 0 0 0 1 1 1 1 | 0 0  0  0  1  1  1  1
  // and backward k the same micro-batch on chunk v - 1 - chunk (get_model_chunk_id). Warm-up
  // (get_pp_rank_microbatches): (P - s - 1)·2 + (v - 1)·P = 10, 8, 6, 4 forwards on stages
  // 0..3; then forward warm-up + i, backward i; then the remaining backwards.
  const auto ops = interleaved_one_f_one_b(4, 2, 8);
  ASSERT_EQ(ops.size(), 4u);
  EXPECT_EQ(chunk_text(ops[0]),
            "F0.0 F1.0 F2.0 F3.0 F0.1 F1.1 F2.1 F3.1 F4.0 F5.0 "  // warm-up: 10
            "F6.0 B0.1 F7.0 B1.1 F4.1 B2.1 F5.1 B3.1 F6.1 B0.0 F7.1 B1.0 "
            "B2.0 B3.0 B4.1 B5.1 B6.1 B7.1 B4.0 B5.0 B6.0 B7.0");
  EXPECT_EQ(chunk_text(ops[1]),
            "F0.0 F1.0 F2.0 F3.0 F0.1 F1.1 F2.1 F3.1 "  // warm-up: 8
            "F4.0 B0.1 F5.0 B1.1 F6.0 B2.1 F7.0 B3.1 F4.1 B0.0 F5.1 B1.0 F6.1 B2.0 F7.1 B3.0 "
            "B4.1 B5.1 B6.1 B7.1 B4.0 B5.0 B6.0 B7.0");
  EXPECT_EQ(chunk_text(ops[2]),
            "F0.0 F1.0 F2.0 F3.0 F0.1 F1.1 "  // warm-up: 6
            "F2.1 B0.1 F3.1 B1.1 F4.0 B2.1 F5.0 B3.1 F6.0 B0.0 F7.0 B1.0 F4.1 B2.0 F5.1 B3.0 "
            "F6.1 B4.1 F7.1 B5.1 "
            "B6.1 B7.1 B4.0 B5.0 B6.0 B7.0");
  EXPECT_EQ(chunk_text(ops[3]),
            "F0.0 F1.0 F2.0 F3.0 "  // warm-up: 4
            "F0.1 B0.1 F1.1 B1.1 F2.1 B2.1 F3.1 B3.1 F4.0 B0.0 F5.0 B1.0 F6.0 B2.0 F7.0 B3.0 "
            "F4.1 B4.1 F5.1 B5.1 F6.1 B6.1 F7.1 B7.1 "
            "B4.0 B5.0 B6.0 B7.0");
  // Every stage runs each (micro-batch, chunk) once forward and once backward.
  for (const auto& o : ops)
    EXPECT_EQ(o.size(), 2u * 8 * 2);
}

TEST(PipelineSchedule, InterleavedWarmUpIsClampedToAllVirtualMicroBatches) {
  // P = 4, v = 2, m = 4: stage 0's warm-up would be 6 + 4 = 10 > m·v = 8, so it runs all 8
  // forwards, then all 8 backwards (chunk 1's first: backward k runs chunk 1 - chunk(k)).
  const auto ops = interleaved_one_f_one_b(4, 2, 4);
  EXPECT_EQ(chunk_text(ops[0]),
            "F0.0 F1.0 F2.0 F3.0 F0.1 F1.1 F2.1 F3.1 B0.1 B1.1 B2.1 B3.1 B0.0 B1.0 B2.0 B3.0");
}

TEST(PipelineSchedule, InterleavedCreationOrderFollowsChunkBoundariesAcrossRanks) {
  // P = 2, v = 2, m = 2. Stage 0 (warm-up 2 + 2 = 4): F0.0 F1.0 F0.1 F1.1 B0.1 B1.1 B0.0 B1.0;
  // stage 1 (warm-up 2): F0.0 F1.0 F0.1 B0.1 F1.1 B1.1 B0.0 B1.0. Stage 0's chunk 1 takes
  // stage 1's chunk 0 output (the last rank back to the first), stage 1's chunk 0 backward
  // takes stage 0's chunk 1 backward.
  // Sweep 1: stage 0 places F0.0 F1.0, stops at F0.1 (stage 1's F0.0 missing); stage 1 places
  // F0.0 F1.0, stops at F0.1. Sweep 2: stage 0 places F0.1 F1.1, stops at B0.1; stage 1 places
  // F0.1 B0.1 F1.1 B1.1, stops at B0.0 (stage 0's B0.1 missing). Sweep 3: stage 0 places
  // B0.1 B1.1, stops at B0.0 (stage 1's B0.0 missing); stage 1 places B0.0 B1.0. Sweep 4:
  // stage 0 places B0.0 B1.0.
  const auto order = creation_order(interleaved_one_f_one_b(2, 2, 2), 2, 2);
  std::string out;
  for (const auto& op : order) {
    out +=
        (out.empty() ? "" : " ") + std::string("s") + std::to_string(op.stage) + chunk_text({op});
  }
  EXPECT_EQ(out,
            "s0F0.0 s0F1.0 s1F0.0 s1F1.0 s0F0.1 s0F1.1 s1F0.1 s1B0.1 s1F1.1 s1B1.1 s0B0.1 s0B1.1 "
            "s1B0.0 s1B1.0 s0B0.0 s0B1.0");
}

}  // namespace
}  // namespace linksim::work
