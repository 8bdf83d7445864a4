#include "sim/work/model_costs.hpp"

namespace linksim::work {
namespace {

// Per-layer pieces of an architecture model, as doubles (counts reach 1e12).
struct LayerParts {
  double attention = 0;   // q, k, v, o projections
  double ffn_expert = 0;  // one FFN (one expert for MoE)
  double router = 0;      // MoE gate
  double norms = 0;       // two norm weights
};

LayerParts layer_parts(const ModelSpec& m) {
  const double h = m.hidden;
  const double kv_width = static_cast<double>(m.kv_heads) * m.head_dim();
  LayerParts p;
  p.attention = 2 * h * h + 2 * h * kv_width;  // q and o: h×h; k and v: h×(kv_heads·head_dim)
  p.ffn_expert = (m.gated_ffn ? 3.0 : 2.0) * h * m.ffn_hidden;
  p.router = m.is_moe() ? h * m.experts : 0;
  p.norms = 2 * h;
  return p;
}

double ffn_count(const ModelSpec& m) {
  return m.is_moe() ? m.experts : 1;
}
double active_ffn_count(const ModelSpec& m) {
  return m.is_moe() ? m.experts_per_token : 1;
}

}  // namespace

double embedding_params(const ModelSpec& m) {
  if (m.is_plain()) return 0;
  const double table = static_cast<double>(m.vocab) * m.hidden;
  return (m.tied_embeddings ? table : 2 * table) + m.hidden;  // + final norm
}

LayerCosts layer_costs(const ModelSpec& m) {
  LayerCosts c;
  const double bytes = dtype_bytes(m.dtype);
  if (m.is_plain()) {
    c.params = *m.plain_parameters / m.layers;
    c.fwd_flops_per_token = 2 * c.params;
    c.linear_params = c.params;
    c.activation_bytes_per_token = m.hidden * bytes;
  } else {
    const LayerParts p = layer_parts(m);
    c.params = p.attention + ffn_count(m) * p.ffn_expert + p.router + p.norms;
    c.fwd_flops_per_token = 2 * (p.attention + active_ffn_count(m) * p.ffn_expert + p.router);
    c.attention_flops_per_token_per_context_token = 4.0 * m.hidden;
    c.activation_bytes_per_token = m.hidden * bytes;
    c.kv_bytes_per_token = 2.0 * m.kv_heads * m.head_dim() * bytes;
    c.expert_params = m.is_moe() ? m.experts * p.ffn_expert : 0;
    c.linear_params = p.attention + ffn_count(m) * p.ffn_expert;
  }
  c.weight_bytes = c.params * bytes;
  return c;
}

double parameter_count(const ModelSpec& m) {
  if (m.is_plain()) return *m.plain_parameters;
  return m.layers * layer_costs(m).params + embedding_params(m);
}

double active_parameters_per_token(const ModelSpec& m) {
  if (m.is_plain() || !m.is_moe()) return parameter_count(m);
  const double idle_experts = m.experts - m.experts_per_token;
  return parameter_count(m) - m.layers * idle_experts * layer_parts(m).ffn_expert;
}

double forward_flops_per_token(const ModelSpec& m, double context_tokens) {
  const LayerCosts c = layer_costs(m);
  const double lm_head = m.is_plain() ? 0 : 2.0 * m.vocab * m.hidden;
  return m.layers * (c.fwd_flops_per_token +
                     c.attention_flops_per_token_per_context_token * context_tokens) +
         lm_head;
}

}  // namespace linksim::work
