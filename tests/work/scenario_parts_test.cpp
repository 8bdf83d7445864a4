// The scenario fields for fine-tuning, precision, serving and the plan's memory switches: what
// they read into, and every bad value refused at its JSON pointer with what was expected.
#include "sim/work/scenario_parts.hpp"

#include <gtest/gtest.h>

#include "sim/core/error.hpp"
#include "sim/work/precision.hpp"
#include "sim/work/scenario.hpp"
#include "tests/support/temp_files.hpp"

namespace linksim::work {
namespace {

using linksim::testing::TempDir;

// A scenario on llama2-7b with `job` and `rest` (more top-level members, after a comma).
std::string scenario(const std::string& job, const std::string& plan = "{}",
                     const std::string& rest = "") {
  return R"({"title": "t", "topologies": ["dgx-a100"], "model": "llama2-7b", "job": )" + job +
         R"(, "plan": )" + plan + (rest.empty() ? "" : ", " + rest) + "}";
}

struct Refused {
  std::string pointer;
  std::string says;
};

Refused refusal(const std::string& text) {
  TempDir dir;
  const std::string path = dir.write("s.json", text);
  try {
    load_scenario(path);
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), path);
    return {e.location(), e.message()};
  }
  return {"(loaded)", ""};
}

TEST(ScenarioParts, MachineFilesResolveAgainstTheScenarioNotTheCurrentFolder) {
  // "mytopo.json" (no '/') sits beside the scenario; the tests run from the build folder, where
  // there is none. A shipped name stays a shipped name.
  TempDir dir;
  dir.write("mytopo.json", "{}");
  const std::string path = dir.write(
      "s.json", R"({"title": "t", "topologies": ["mytopo.json", "dgx-a100"], "model": "llama2-7b",
                   "job": {"kind": "training", "global_batch": 2, "sequence_length": 128},
                   "plan": {"data": 2}})");
  const Scenario s = load_scenario(path);
  ASSERT_EQ(s.topologies.size(), 2u);
  EXPECT_EQ(s.topologies[0], dir.path() + "/mytopo.json");
  EXPECT_NE(s.topologies[1].find("topologies/dgx-a100.json"), std::string::npos);
  // A file named that is not there says where it was looked for.
  const Refused r = refusal(R"({"title": "t", "topologies": ["nothere.json"], "model":
      "llama2-7b", "job": {"kind": "training", "global_batch": 2, "sequence_length": 128},
      "plan": {"data": 2}})");
  EXPECT_EQ(r.pointer, "/topologies/0");
  EXPECT_EQ(r.says.rfind("no machine file \"nothere.json\" (looked for ", 0), 0u) << r.says;
}

TEST(ScenarioParts, RunsTheModelAtTheScenariosDtypeWithItsAdamState) {
  // gpt3-175b's file gives fp16 (the published model's); a run trained in bf16 says so, and
  // may then keep Apex's remainders, which need bf16 weights.
  TempDir dir;
  const std::string text =
      R"({"title": "t", "topologies": ["dgx-a100"], "model": "gpt3-175b",
          "job": {"kind": "training"}, "plan": {},
          "precision": {"dtype": "bf16", "master_weights": "remainder"}})";
  const Scenario s = load_scenario(dir.write("s.json", text));
  EXPECT_EQ(load_model("gpt3-175b").dtype, "fp16");
  EXPECT_EQ(scenario_model(s).dtype, "bf16");
  EXPECT_EQ(s.job.precision.master_weights, "remainder");
  EXPECT_EQ(s.job.precision.optimizer_states, "");
  // 2 x 4 B fp32 moments + 2 B of remainder.
  EXPECT_EQ(optimizer_bytes_per_param(s.job.precision, scenario_model(s).dtype), 10);
}

TEST(ScenarioParts, ReadsFinetunePrecisionAndPlanSwitches) {
  TempDir dir;
  const Scenario s = load_scenario(dir.write(
      "s.json",
      scenario(R"({"kind": "training", "global_batch": 8,
                   "finetune": {"method": "qlora", "rank": 64, "target_modules": ["q_proj", "v_proj"]}})",
               R"({"recompute": "selective", "flash_attention": false, "activation_offload": true,
                   "optimizer_offload": true})",
               R"("precision": {"weights": "int4", "group_size": 64, "kv_cache": "fp8"})")));
  EXPECT_EQ(s.job.finetune.method, FinetuneMethod::qlora);
  EXPECT_EQ(s.job.finetune.rank, 64);
  EXPECT_EQ(s.job.finetune.target_modules, (std::vector<std::string>{"q_proj", "v_proj"}));
  EXPECT_EQ(s.job.precision.weights, "int4");
  EXPECT_EQ(s.job.precision.group_size, 64);
  EXPECT_EQ(s.job.precision.kv_cache, "fp8");
  EXPECT_EQ(s.plan.recompute, Recompute::selective);
  EXPECT_EQ(s.plan.flash_attention, std::optional<bool>(false));
  EXPECT_TRUE(s.plan.activation_offload);
  EXPECT_TRUE(s.plan.optimizer_offload);
  // true and false still mean full and none.
  EXPECT_EQ(load_scenario(
                dir.write("t.json", scenario(R"({"kind": "training"})", R"({"recompute": true})")))
                .plan.recompute,
            Recompute::full);
}

TEST(ScenarioParts, ReadsAServingLoad) {
  TempDir dir;
  const Scenario s = load_scenario(
      dir.write("s.json", scenario(R"({"kind": "serving", "request_rate": 2.5, "requests": 50,
                                       "input_tokens": {"min": 100, "max": 300},
                                       "output_tokens": 64, "max_batch": 16, "seed": 7})")));
  EXPECT_EQ(s.job.kind, JobKind::serving);
  EXPECT_EQ(s.job.serving.request_rate_per_s, 2.5);
  EXPECT_EQ(s.job.serving.requests, 50);
  EXPECT_EQ(s.job.serving.input_tokens.min, 100);
  EXPECT_EQ(s.job.serving.input_tokens.max, 300);
  EXPECT_EQ(s.job.serving.output_tokens.min, 64);
  EXPECT_EQ(s.job.serving.output_tokens.max, 64);
  EXPECT_EQ(s.job.serving.max_batch, 16);
  EXPECT_EQ(s.job.serving.seed, 7u);
  // What must fit beside the weights: one request of the longest input and output.
  EXPECT_EQ(s.job.sequence_length, 300);
  EXPECT_EQ(s.job.decode_tokens, 64);
}

TEST(ScenarioParts, BadValuesAreRefusedWhereTheyAre) {
  const std::string training = R"({"kind": "training"})";
  const std::vector<std::pair<std::string, Refused>> cases = {
      {scenario(R"({"kind": "training", "finetune": {"method": "adapter"}})"),
       {"/job/finetune/method", "unknown method \"adapter\"; expected one of: full, lora, qlora"}},
      {scenario(R"({"kind": "training", "finetune": {"method": "lora", "rank": 0}})"),
       {"/job/finetune/rank", "expected an integer from 1 to 65536"}},
      {scenario(
           R"({"kind": "training", "finetune": {"method": "lora", "target_modules": ["wq"]}})"),
       {"/job/finetune/target_modules/0",
        "unknown target module \"wq\"; expected one of: q_proj, k_proj, v_proj, o_proj, "
        "gate_proj, up_proj, down_proj"}},
      {scenario(R"({"kind": "training", "finetune": {"method": "lora",
                    "target_modules": ["q_proj", "q_proj"]}})"),
       {"/job/finetune/target_modules/1", "target module \"q_proj\" named twice"}},
      {scenario(R"({"kind": "training", "finetune": {"method": "lora", "target_modules": []}})"),
       {"/job/finetune/target_modules", "expected at least one target module"}},
      {scenario(R"({"kind": "training", "finetune": {"method": "full", "rank": 8}})"),
       {"/job/finetune/rank", "\"rank\" applies to lora and qlora"}},
      {scenario(R"({"kind": "decode", "finetune": {"method": "lora"}})"),
       {"/job/finetune", "\"finetune\" with adapters applies to a training job"}},
      {scenario(training, "{}", R"("precision": {"weights": "int3"})"),
       {"/precision/weights",
        "unknown weight format \"int3\"; expected one of: bf16, fp16, fp32, fp8, int8, int4, nf4"}},
      {scenario(training, "{}", R"("precision": {"group_size": 64})"),
       {"/precision/group_size",
        "\"group_size\" applies to int8 and int4 weights (expected weights int8 or int4)"}},
      {scenario(R"({"kind": "decode"})", "{}",
                R"("precision": {"weights": "int4", "group_size": 0})"),
       {"/precision/group_size", "expected an integer from 1 to 1000000"}},
      {scenario(R"({"kind": "decode"})", "{}", R"("precision": {"kv_cache": "int8"})"),
       {"/precision/kv_cache",
        "unknown KV dtype \"int8\"; expected one of: bf16, fp16, fp32, fp8"}},
      {scenario(training, "{}", R"("precision": {"weights": "int4"})"),
       {"/precision/weights",
        "training updates every weight, which int4 cannot hold; expected a LoRA or QLoRA job "
        "(job.finetune) to train adapters on a quantized base"}},
      {scenario(R"({"kind": "training", "finetune": {"method": "qlora"}})", "{}",
                R"("precision": {"weights": "int8"})"),
       {"/precision/weights",
        "QLoRA's base is 4-bit; expected weights nf4 (its default) or int4, got int8"}},
      {scenario(training, "{}", R"("precision": {"dtype": "fp8"})"),
       {"/precision/dtype", "unknown model dtype \"fp8\"; expected one of: bf16, fp16, fp32"}},
      {scenario(training, "{}", R"("precision": {"optimizer_states": "fp8"})"),
       {"/precision/optimizer_states",
        "unknown optimizer state dtype \"fp8\"; expected one of: fp32, bf16, fp16"}},
      {scenario(training, "{}", R"("precision": {"master_weights": "fp8"})"),
       {"/precision/master_weights",
        "unknown master weights \"fp8\"; expected one of: fp32, remainder, none"}},
      {scenario(R"({"kind": "decode"})", "{}", R"("precision": {"master_weights": "none"})"),
       {"/precision/master_weights", "Adam's state applies to a training job, not decode"}},
      {scenario(R"({"kind": "prefill"})", "{}", R"("precision": {"optimizer_states": "bf16"})"),
       {"/precision/optimizer_states", "Adam's state applies to a training job, not prefill"}},
      {scenario(training, "{}",
                R"("precision": {"optimizer_states": "bf16", "master_weights": "remainder"})"),
       {"/precision/master_weights",
        "\"remainder\" keeps the 16 bits a bf16 weight lacks of its fp32 value (Apex's "
        "store_param_remainders); expected a bf16 model and fp32 optimizer_states, got model "
        "dtype bf16 and bf16 states"}},
      {scenario(training, "{}", R"("precision": {"dtype": "fp16", "master_weights": "remainder"})"),
       {"/precision/master_weights",
        "\"remainder\" keeps the 16 bits a bf16 weight lacks of its fp32 value (Apex's "
        "store_param_remainders); expected a bf16 model and fp32 optimizer_states, got model "
        "dtype fp16 and fp32 states"}},
      {scenario(training, "{}", R"("precision": {"dtype": "fp32", "master_weights": "fp32"})"),
       {"/precision/master_weights",
        "an fp32 model's weights are their own master copy; expected no master_weights or "
        "\"none\""}},
      {scenario(training, R"({"recompute": "some"})"),
       {"/plan/recompute",
        "unknown recompute \"some\"; expected true, false, \"none\", \"selective\" or \"full\""}},
      {scenario(R"({"kind": "decode"})", R"({"activation_offload": true})"),
       {"/plan/activation_offload", "\"activation_offload\" applies to a training job"}},
      {scenario(R"({"kind": "prefill"})", R"({"optimizer_offload": true})"),
       {"/plan/optimizer_offload", "\"optimizer_offload\" applies to a training job"}},
      {scenario(R"({"kind": "serving"})"), {"/job", "missing required field \"request_rate\""}},
      {scenario(R"({"kind": "serving", "request_rate": 0})"),
       {"/job/request_rate", "expected requests per second above 0, at most 1e6"}},
      {scenario(R"({"kind": "serving", "request_rate": 1, "input_tokens": {"min": 9, "max": 3}})"),
       {"/job/input_tokens/max", "expected max >= min (9)"}},
      {scenario(R"({"kind": "serving", "request_rate": 1, "output_tokens": "long"})"),
       {"/job/output_tokens", "expected a token count or {\"min\": ..., \"max\": ...}"}},
      {scenario(R"({"kind": "serving", "request_rate": 1, "global_batch": 4})"),
       {"/job/global_batch", "unknown field \"global_batch\""}},
  };
  for (const auto& [text, want] : cases) {
    const Refused got = refusal(text);
    EXPECT_EQ(got.pointer, want.pointer) << text;
    EXPECT_EQ(got.says.substr(0, want.says.size()), want.says) << text;
  }
}

}  // namespace
}  // namespace linksim::work
