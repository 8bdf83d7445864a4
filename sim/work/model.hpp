#pragma once
// A model: the architecture figures that decide parameter counts, FLOPs, activation and KV-cache
// sizes (format: docs/model-format.md, schema: models/schema.json). Two kinds of file:
//  - an architecture ("layers", "hidden", "heads", ...): counts are computed from the fields;
//  - a plain model ("parameters": N): only a count, as in "a model with 5e9 parameters". It has
//    `layers` equal layers when the file gives "layers", else 1 layer holding everything, and
//    `hidden` only when the file gives it (0 otherwise: no activation or KV-cache figures).
//
// Loading checks everything and throws InputError naming the file, the JSON pointer and what
// was expected: unknown fields, wrong types, non-positive sizes, heads not dividing hidden,
// kv_heads not dividing heads, experts_per_token > experts, unknown dtype.

#include <optional>
#include <string>
#include <vector>

#include "sim/core/json_view.hpp"

namespace linksim::work {

struct ModelSpec {
  std::string name;                  // "llama2-70b" (file stem for shipped models)
  std::string title;                 // "Llama 2 70B"
  std::vector<std::string> sources;  // where the figures come from (paper, config.json URL)
  int layers = 1;                    // transformer blocks
  int hidden = 0;                    // model width d_model (0: plain model without width)
  int heads = 0;                     // attention (query) heads
  int kv_heads = 0;                  // key/value heads (GQA); == heads for multi-head attention
  int ffn_hidden = 0;                // FFN inner width (per expert for MoE)
  int vocab = 0;                     // vocabulary size
  int experts = 0;                   // 0: dense FFN; else MoE experts per layer
  int experts_per_token = 0;         // MoE top-k
  bool gated_ffn = true;             // SwiGLU: 3 matrices (gate, up, down); GPT-style: 2
  bool tied_embeddings = false;      // LM head shares the input embedding matrix
  // Trained with dropout (hidden and attention): its 1-byte masks are activations too. Modern
  // LLMs train without (Llama, Mistral, Nemotron-4); GPT-3-era Megatron runs used 0.1.
  bool dropout = false;
  std::string dtype = "bf16";              // weight/activation dtype: "bf16", "fp16", "fp32", "fp8"
  double published_parameters = 0;         // the count the source states (for checks and reports)
  std::optional<double> plain_parameters;  // set for a plain model: the whole count

  bool is_plain() const { return plain_parameters.has_value(); }
  bool is_moe() const { return experts > 0; }
  int head_dim() const { return heads > 0 ? hidden / heads : 0; }
};

// Bytes per element: bf16/fp16 2, fp32 4, fp8 1. Throws std::invalid_argument for another name
// (input is validated by the loader, so reaching that is a programming error).
double dtype_bytes(const std::string& dtype);
// The accepted dtype names, in a stable order.
const std::vector<std::string>& dtype_names();

// `name_or_path`: a path to a JSON file (contains '/' or ends in ".json"), or a shipped model's
// name, resolved as <data_dir()>/models/NAME.json. An unknown name lists the shipped ones.
ModelSpec load_model(const std::string& name_or_path);
// Parses a document that came from `file`; `default_name` is used when it has no "name".
ModelSpec parse_model(const Json& document, const std::string& file,
                      const std::string& default_name);

// Paths of the shipped model files (models/*.json except schema.json), sorted.
std::vector<std::string> shipped_model_files();
// Their names (file stems), sorted.
std::vector<std::string> shipped_model_names();
// Where the shipped model `name` lives (which may not exist).
std::string shipped_model_path(const std::string& name);

// Most parameters a model may have (a million times the largest published model), so that
// FLOPs and bytes derived from it stay finite.
inline constexpr double kMaxModelParameters = 1e18;

}  // namespace linksim::work
