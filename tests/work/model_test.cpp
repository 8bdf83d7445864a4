#include "sim/work/model.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "sim/core/error.hpp"
#include "sim/core/schema_check.hpp"
#include "sim/work/model_costs.hpp"
#include "tests/support/temp_files.hpp"
#include "tests/support/thrown_message.hpp"

namespace linksim::work {
namespace {

ModelSpec parse(const std::string& text) {
  return parse_model(parse_json_text(text, "bad.json"), "bad.json", "bad");
}

// The error a document raises, as what() ("file: at pointer: message").
std::string error_of(const std::string& text) {
  return testing::thrown_message<InputError>([&] { parse(text); });
}

const char* kTiny =
    R"({"title": "tiny", "layers": 2, "hidden": 8, "heads": 2, "kv_heads": 1,
        "ffn_hidden": 16, "vocab": 10})";

TEST(ModelShipped, EveryFileValidatesLoadsAndMatchesItsPublishedCount) {
  const Json schema = read_json_file(testing::source_dir() + "/models/schema.json");
  const auto files = shipped_model_files();
  ASSERT_GE(files.size(), 10u);
  for (const auto& file : files) {
    SCOPED_TRACE(file);
    const Json doc = read_json_file(file);
    EXPECT_EQ(schema_violations(doc, schema), std::vector<std::string>{});
    EXPECT_FALSE(doc.value("sources", Json::array()).empty()) << "shipped models cite a source";
    const ModelSpec m = load_model(file);
    EXPECT_EQ(m.name, std::filesystem::path(file).stem().string());
    EXPECT_LE(std::fabs(parameter_count(m) / m.published_parameters - 1), 0.02);
  }
}

TEST(ModelShipped, SchemaRejectsWhatTheLoaderRejects) {
  const Json schema = read_json_file(testing::source_dir() + "/models/schema.json");
  const auto bad = [&](const char* text) {
    return !schema_violations(parse_json_text(text, "t.json"), schema).empty();
  };
  EXPECT_FALSE(bad(R"({"title": "x", "parameters": 5e9, "layers": 4, "hidden": 64})"));
  EXPECT_TRUE(bad(R"({"title": "x", "parameters": 5e9, "heads": 2})"));
  EXPECT_TRUE(bad(R"({"title": "x", "layers": 2, "hidden": 8, "heads": 2, "ffn_hidden": 16})"));
  EXPECT_TRUE(bad(R"({"title": "x", "layers": 2, "hidden": 8, "heads": 2, "ffn_hidden": 16,
                      "vocab": 10, "experts": 8})"));
  EXPECT_TRUE(bad(R"({"title": "x", "parameters": 5e9, "dtype": "int4"})"));
  EXPECT_TRUE(bad(R"({"title": "x", "parameters": 5e9, "size": 1})"));
}

TEST(ModelShipped, NamesResolveToTheShippedFiles) {
  const auto names = shipped_model_names();
  for (const char* n :
       {"llama2-7b", "llama2-13b", "llama2-70b", "llama3-8b", "llama3-70b", "llama3-405b",
        "gpt3-175b", "mixtral-8x7b", "gradients-10gb", "plain-70b"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
  }
  EXPECT_EQ(load_model("llama2-70b").title, "Llama 2 70B");
}

TEST(ModelCounts, Llama2_7B) {
  const ModelSpec m = load_model("llama2-7b");
  // per layer: 4·4096² (q,k,v,o; 32 KV heads) + 3·4096·11008 (SwiGLU) + 2·4096 (norms)
  //          = 67,108,864 + 135,266,304 + 8,192 = 202,383,360
  // 32 × 202,383,360 + 2·32000·4096 (embedding + LM head) + 4096 (final norm)
  //   = 6,476,267,520 + 262,144,000 + 4,096 = 6,738,415,616 (transformers counts the same)
  EXPECT_EQ(parameter_count(m), 6738415616.0);
  EXPECT_EQ(active_parameters_per_token(m), 6738415616.0);
  EXPECT_EQ(embedding_params(m), 262148096.0);
  const LayerCosts c = layer_costs(m);
  EXPECT_EQ(c.params, 202383360.0);
  EXPECT_EQ(c.weight_bytes, 404766720.0);  // × 2 B (bf16)
  // 2 × matmul params (norms are no matmul): 2 × (67,108,864 + 135,266,304) = 404,750,336
  EXPECT_EQ(c.fwd_flops_per_token, 404750336.0);
  EXPECT_EQ(c.attention_flops_per_token_per_context_token, 16384.0);  // 4 × 4096
  EXPECT_EQ(c.activation_bytes_per_token, 8192.0);                    // 4096 × 2 B
  EXPECT_EQ(c.kv_bytes_per_token, 16384.0);  // 2 (K, V) × 32 heads × 128 × 2 B
  EXPECT_EQ(c.expert_params, 0.0);
}

TEST(ModelCounts, ForwardFlopsAreTwicePerParameterPlusAttention) {
  const ModelSpec m = load_model("llama2-7b");
  // 32 layers × (404,750,336 + 16,384 × 1024 context tokens = 16,777,216) = 13,488,881,664
  // + LM head 2 × 32000 × 4096 = 262,144,000  → 13,751,025,664
  // (2 × params = 13,476,831,232: the input embedding is a lookup, attention adds 537M)
  EXPECT_EQ(forward_flops_per_token(m, 1024), 13751025664.0);
}

TEST(ModelCounts, Llama2_70BWithGroupedQueryAttention) {
  const ModelSpec m = load_model("llama2-70b");
  // attention: 2·8192² (q, o) + 2·8192·(8 KV heads × 128) (k, v) = 134,217,728 + 16,777,216
  // FFN 3·8192·28672 = 704,643,072; norms 16,384 → layer 855,654,400
  // 80 × 855,654,400 + 2·32000·8192 + 8192 = 68,452,352,000 + 524,296,192 = 68,976,648,192
  EXPECT_EQ(parameter_count(m), 68976648192.0);
  EXPECT_EQ(layer_costs(m).kv_bytes_per_token, 4096.0);  // 2 × 8 × 128 × 2 B (fp16)
}

TEST(ModelCounts, MixtralCountsAllExpertsButActivatesTwo) {
  const ModelSpec m = load_model("mixtral-8x7b");
  // attention 2·4096² + 2·4096·1024 = 41,943,040; one expert 3·4096·14336 = 176,160,768;
  // router 4096·8 = 32,768; norms 8,192
  // layer: 41,943,040 + 8 × 176,160,768 + 32,768 + 8,192 = 1,451,270,144
  // total: 32 × 1,451,270,144 + 2·32000·4096 + 4096 = 46,702,792,704 (published 46.7B)
  EXPECT_EQ(parameter_count(m), 46702792704.0);
  // active: minus 32 layers × 6 idle experts × 176,160,768 = 33,822,867,456 → 12,879,925,248
  EXPECT_EQ(active_parameters_per_token(m), 12879925248.0);
  const LayerCosts c = layer_costs(m);
  EXPECT_EQ(c.expert_params, 1409286144.0);  // 8 × 176,160,768
  // 2 × (41,943,040 + 2 × 176,160,768 + 32,768) = 788,594,688
  EXPECT_EQ(c.fwd_flops_per_token, 788594688.0);
}

TEST(ModelCounts, Gpt3UsesTwoMatrixFfnAndTiedEmbeddings) {
  const ModelSpec m = load_model("gpt3-175b");
  // layer: 4·12288² + 2·12288·49152 + 2·12288 = 603,979,776 + 1,207,959,552 + 24,576
  //      = 1,811,963,904; × 96 = 173,948,534,784; + 50257·12288 (tied) + 12288 = 174,566,105,088
  EXPECT_EQ(parameter_count(m), 174566105088.0);
}

TEST(ModelCounts, PlainModelIsItsCount) {
  const ModelSpec m = load_model("gradients-10gb");
  EXPECT_TRUE(m.is_plain());
  EXPECT_EQ(m.dtype, "fp16");
  EXPECT_EQ(parameter_count(m), 5e9);
  EXPECT_EQ(embedding_params(m), 0.0);
  const LayerCosts c = layer_costs(m);  // one layer holding everything
  EXPECT_EQ(m.layers, 1);
  EXPECT_EQ(c.params, 5e9);
  EXPECT_EQ(c.weight_bytes, 10e9);  // the seed's 10 GB: 5e9 × 2 B
  EXPECT_EQ(c.fwd_flops_per_token, 10e9);
  EXPECT_EQ(c.activation_bytes_per_token, 0.0);  // no width given
  EXPECT_EQ(c.kv_bytes_per_token, 0.0);

  const ModelSpec p70 = load_model("plain-70b");
  EXPECT_EQ(p70.layers, 80);
  EXPECT_EQ(layer_costs(p70).params, 875e6);                        // 70e9 / 80
  EXPECT_EQ(layer_costs(p70).activation_bytes_per_token, 16384.0);  // 8192 × 2 B
}

TEST(ModelCounts, DtypeBytes) {
  EXPECT_EQ(dtype_bytes("bf16"), 2.0);
  EXPECT_EQ(dtype_bytes("fp16"), 2.0);
  EXPECT_EQ(dtype_bytes("fp32"), 4.0);
  EXPECT_EQ(dtype_bytes("fp8"), 1.0);
  EXPECT_THROW(dtype_bytes("int3"), std::invalid_argument);
}

TEST(ModelLoad, DefaultsAndTinyCounts) {
  const ModelSpec m = parse(kTiny);
  EXPECT_EQ(m.name, "bad");
  EXPECT_EQ(m.dtype, "bf16");
  EXPECT_TRUE(m.gated_ffn);
  EXPECT_FALSE(m.tied_embeddings);
  EXPECT_FALSE(m.dropout);  // modern LLMs train without
  // layer: 2·8² + 2·8·(1 × 4) + 3·8·16 + 2·8 = 128 + 64 + 384 + 16 = 592
  // total: 2 × 592 + 2·10·8 + 8 = 1,184 + 168 = 1,352
  EXPECT_EQ(parameter_count(m), 1352.0);
}

TEST(ModelLoad, BadInputNamesFilePointerAndExpectation) {
  EXPECT_EQ(error_of(R"({"title": "x", "layers": 2, "hidden": 8, "heads": 2, "ffn_hidden": 16,
                         "vocab": 10, "hiden": 8})"),
            "bad.json: at /hiden: unknown field \"hiden\"; expected one of: $schema, title, "
            "description, sources, notes, dtype, published_parameters, layers, hidden, heads, "
            "kv_heads, ffn_hidden, vocab, experts, experts_per_token, gated_ffn, "
            "tied_embeddings, dropout, parameters");
  EXPECT_EQ(error_of(R"({"title": "x", "layers": "2", "hidden": 8, "heads": 2, "ffn_hidden": 16,
                         "vocab": 10})"),
            "bad.json: at /layers: expected an integer, got a string");
  EXPECT_EQ(error_of(R"({"title": "x", "layers": 0, "hidden": 8, "heads": 2, "ffn_hidden": 16,
                         "vocab": 10})"),
            "bad.json: at /layers: expected a positive integer, got 0");
  EXPECT_EQ(error_of(R"({"title": "x", "layers": 2, "hidden": 8, "heads": 3, "ffn_hidden": 16,
                         "vocab": 10})"),
            "bad.json: at /heads: heads (3) must divide hidden (8)");
  EXPECT_EQ(error_of(R"({"title": "x", "layers": 2, "hidden": 8, "heads": 4, "kv_heads": 3,
                         "ffn_hidden": 16, "vocab": 10})"),
            "bad.json: at /kv_heads: kv_heads (3) must divide heads (4)");
  EXPECT_EQ(error_of(R"({"title": "x", "layers": 2, "hidden": 8, "heads": 2, "ffn_hidden": 16,
                         "vocab": 10, "experts": 4, "experts_per_token": 5})"),
            "bad.json: at /experts_per_token: experts_per_token (5) must not exceed experts (4)");
  EXPECT_EQ(error_of(R"({"title": "x", "layers": 2, "hidden": 8, "heads": 2, "ffn_hidden": 16,
                         "vocab": 10, "experts": 4})"),
            "bad.json: at /: \"experts\" and \"experts_per_token\" go together: give both for a "
            "MoE model, neither for a dense one");
  EXPECT_EQ(error_of(R"({"title": "x", "layers": 2, "hidden": 8, "heads": 2, "ffn_hidden": 16,
                         "vocab": 10, "dtype": "fp4"})"),
            "bad.json: at /dtype: unknown dtype \"fp4\"; expected one of: bf16, fp16, fp32, fp8 "
            "(quantized weights, int8, int4 or nf4, are a scenario's precision.weights)");
  EXPECT_EQ(error_of(R"({"title": "x", "layers": 2, "hidden": 8, "heads": 2, "vocab": 10})"),
            "bad.json: at /: missing required field \"ffn_hidden\"");
  EXPECT_EQ(error_of(R"({"title": "x", "parameters": 7e9, "heads": 2})"),
            "bad.json: at /heads: a plain model (\"parameters\") takes no \"heads\"; its only "
            "architecture fields are \"layers\" and \"hidden\"");
  EXPECT_EQ(error_of(R"({"title": "x", "parameters": -1})"),
            "bad.json: at /parameters: expected a positive number, got -1");
  EXPECT_EQ(error_of(R"([1])"), "bad.json: at /: expected an object, got an array");
}

TEST(ModelLoad, UnknownNameListsShippedModels) {
  try {
    load_model("llama9-1t");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "llama9-1t");
    EXPECT_NE(std::string(e.what()).find("shipped models: gpt3-175b, gradients-10gb, "),
              std::string::npos)
        << e.what();
  }
}

TEST(ModelLoad, FromAPathTakesTheFileStemAsName) {
  testing::TempDir dir;
  const std::string path = dir.write("my-model.json", kTiny);
  const ModelSpec m = load_model(path);
  EXPECT_EQ(m.name, "my-model");
  EXPECT_EQ(m.kv_heads, 1);
  EXPECT_THROW(load_model(dir.path() + "/missing.json"), InputError);
}

}  // namespace
}  // namespace linksim::work
