#pragma once
// Readers for the parts of a scenario beyond the core job and plan (sim/work/scenario.cpp):
// fine-tuning, precision, the serving load, and the plan's memory switches. Each throws
// InputError at the JSON pointer of the value it refuses, saying what was expected.

#include "sim/core/json_view.hpp"
#include "sim/work/parallel_plan.hpp"

namespace linksim::work {

// "job/finetune": {"method", "rank", "target_modules"}.
Finetune parse_finetune(const JsonView& view);
// "precision": {"weights", "group_size", "kv_cache", "matmul"}.
Precision parse_precision(const JsonView& view);
// The serving fields of "job": request_rate, requests, input_tokens, output_tokens,
// max_batch, seed, slo. request_rate is required unless slo is given.
ServingLoad parse_serving(const JsonView& job);
// "job/slo": {"ttft_p99_s", "tpot_p99_s", "e2e_p99_s"}, each a number of seconds above 0; the
// first two required.
ServingSlo parse_slo(const JsonView& view);
// "plan/recompute": true, false, "none", "selective" or "full".
Recompute parse_recompute(const JsonView& view);
// Checks that need the job and precision together (quantized weights are only trained
// through adapters; QLoRA's base is 4-bit); `root` is the scenario document.
void check_precision_and_finetune(const JsonView& root, const Job& job);
// precision.matmul, once the model's dtype is known: the model's dtype or "fp8"; "fp8" only for
// a training or prefill job on a bf16 or fp16 model, without quantized weights or adapters
// (Transformer Engine's FP8 recipe; docs/compute-model.md, "FP8 matmuls"), and under the derived
// compute model (compute.efficiency is one rate for every matmul).
void check_matmul_precision(const JsonView& root, const Job& job, const std::string& model_dtype,
                            bool efficiency_override);
// precision.optimizer_states and master_weights, once the model's dtype is known: a training
// job's; a master copy beside a 16-bit model only, "remainder" only for a bf16 model with fp32
// states (precision.hpp).
void check_optimizer_precision(const JsonView& root, const Job& job,
                               const std::string& model_dtype);

}  // namespace linksim::work
