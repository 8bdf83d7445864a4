#include "sim/work/finetune.hpp"

#include <gtest/gtest.h>

namespace linksim::work {
namespace {

TEST(Finetune, AdapterCountsByHand) {
  // Llama 2 7B: h 4096, 32 heads (MHA), f 11008. Rank 16 on every linear module:
  // q, k, v, o: 4 × 16·(4096 + 4096) = 524,288; gate, up, down: 3 × 16·(4096 + 11008) = 724,992;
  // 1,249,280 per layer, × 32 layers = 39,976,960.
  const ModelSpec m = load_model("llama2-7b");
  Finetune f;
  f.method = FinetuneMethod::lora;
  EXPECT_EQ(adapter_params_per_layer(m, f), 1249280.0);
  // q_proj and v_proj only, rank 8: 2 × 8·8192 = 131,072 (× 32 layers = 4,194,304).
  f.rank = 8;
  f.target_modules = {"q_proj", "v_proj"};
  EXPECT_EQ(adapter_params_per_layer(m, f), 131072.0);
  EXPECT_EQ(adapter_params_per_layer(m, Finetune{}), 0.0);  // full fine-tuning: none
}

TEST(Finetune, MixtureOfExpertsAdaptsEveryExpert) {
  // Mixtral 8x7B: h 4096, 8 KV heads of 128, f 14336, 8 experts, top 2. Rank 1 on k_proj and
  // up_proj: k 4096 + 1024 = 5,120; up 4096 + 14336 = 18,432 per expert.
  const ModelSpec m = load_model("mixtral-8x7b");
  Finetune f;
  f.method = FinetuneMethod::lora;
  f.rank = 1;
  f.target_modules = {"k_proj", "up_proj"};
  EXPECT_EQ(adapter_params_per_layer(m, f), 5120.0 + 8 * 18432.0);
  EXPECT_EQ(active_adapter_params_per_layer(m, f), 5120.0 + 2 * 18432.0);
}

}  // namespace
}  // namespace linksim::work
