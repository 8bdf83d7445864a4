#include "sim/work/layer_ops.hpp"

#include <algorithm>

#include "sim/work/model_costs.hpp"

namespace linksim::work {
namespace {

// Builds an operation list: forward operations as given, or each one's backward.
class Ops {
 public:
  Ops(const LayerOpInputs& in, bool backward) : in_(in), backward_(backward) {}

  // A GEMM with weights (`frozen`: no weight gradient in the backward).
  void gemm(const std::string& name, const GemmShape& s, OpKind kind = OpKind::matmul,
            bool frozen = false) {
    if (!backward_) {
      add_gemm(name, s, kind);
      return;
    }
    // dX = dY·Wᵀ: M×K from M×N and N×K.
    GemmShape dx = s;
    dx.n = s.k;
    dx.k = s.n;
    dx.a_bytes = in_.act_bytes;
    add_gemm(name + " dX", dx, kind);
    if (frozen) return;
    // dW = Xᵀ·dY: K×N from K×M and M×N, written in the dtype.
    GemmShape dw = s;
    dw.m = s.k;
    dw.k = s.m;
    dw.a_bytes = in_.act_bytes;
    dw.b_bytes = in_.act_bytes;
    dw.c_bytes = in_.act_bytes;
    add_gemm(name + " dW", dw, kind);
  }
  // A batched GEMM whose backward the caller lists itself (unfused attention).
  void add_gemm(const std::string& name, const GemmShape& s, OpKind kind) {
    const GemmTime t = gemm_time(s, in_.gpu);
    ops_.push_back({name, kind, s.flops(), s.bytes(), t.seconds});
  }
  // A memory-bound op of `bytes` forward; twice that backward.
  void memory(const std::string& name, double bytes, OpKind kind = OpKind::memory) {
    const double b = backward_ ? 2 * bytes : bytes;
    ops_.push_back({name, kind, 0, b, memory_time_s(b, in_.gpu)});
  }
  void roofline(const std::string& name, OpKind kind, double flops, double fraction, double bytes) {
    ops_.push_back({name, kind, flops, bytes, roofline_time_s(flops, fraction, bytes, in_.gpu)});
  }
  std::vector<OpCost> take() { return std::move(ops_); }

 private:
  const LayerOpInputs& in_;
  bool backward_;
  std::vector<OpCost> ops_;
};

// The attention core: FlashAttention (scores never leave the SMs), or unfused (scores and
// probabilities written to and read from HBM); decode reads every sequence's KV cache.
void attention_core(const LayerOpInputs& in, bool backward, Ops& ops) {
  const ModelSpec& m = *in.model;
  const double t = in.tensor;
  const double a = in.act_bytes;
  const double h = m.hidden;
  const double heads = m.heads / t;
  const double d = m.head_dim();
  const double kvw = static_cast<double>(m.kv_heads) * m.head_dim();
  const double tok = in.tokens;
  if (in.decode) {
    // One new token per sequence against its cached context: QKᵀ and AV are 2·2·head_dim
    // FLOPs per head per context token; the cache is read once; q in and o out.
    const double flops = 4 * tok * in.context * h / t;
    double bytes = tok * in.context * in.kv_bytes_per_token / t + 2 * tok * h / t * a;
    if (!in.flash_attention) bytes += 4 * tok * heads * in.context * a;  // S, P out and back
    ops.roofline("attention", OpKind::attention, flops,
                 in.flash_attention ? in.gpu.attention_fraction : in.gpu.gemm_fraction, bytes);
    return;
  }
  if (in.flash_attention) {
    // Causal: the kernel skips fully masked tiles, so a token attends to `context` (half the
    // sequence) on average. IO: Q, K, V read and O written once, plus the fp32 log-sum-exp.
    const double fwd_flops = 4 * tok * in.context * h / t;
    const double qkv = tok * (h + 2 * kvw) / t * a;
    const double o = tok * h / t * a;
    const double lse = tok * heads * 4;
    if (!backward) {
      ops.roofline("attention", OpKind::attention, fwd_flops, in.gpu.attention_fraction,
                   qkv + o + lse);
    } else {
      // Q, K, V, O, dO and the LSE read; dQ, dK, dV written.
      ops.roofline("attention", OpKind::attention, 2.5 * fwd_flops, in.gpu.attention_fraction,
                   2 * qkv + 2 * o + lse);
    }
    return;
  }
  // Unfused: per sequence and head, S = QKᵀ over the full s×s square (the mask is applied
  // after the matmul), softmax reads S and writes P, O = P·V.
  const double s = in.sequence_length;
  const double batch = in.sequences * heads;
  const GemmShape scores{batch, s, s, d, a, a, a};
  const GemmShape weighted{batch, s, d, s, a, a, a};
  const double square = batch * s * s * a;
  if (!backward) {
    ops.add_gemm("attention QK^T", scores, OpKind::attention);
    ops.roofline("attention softmax", OpKind::attention, 0, 1, 2 * square);
    ops.add_gemm("attention AV", weighted, OpKind::attention);
    return;
  }
  // dP = dO·Vᵀ (s×s), dV = Pᵀ·dO, dS = softmax'(P, dP) (read P and dP, write dS),
  // dQ = dS·K, dK = dSᵀ·Q.
  ops.add_gemm("attention dP", scores, OpKind::attention);
  ops.add_gemm("attention dV", weighted, OpKind::attention);
  ops.roofline("attention softmax", OpKind::attention, 0, 1, 3 * square);
  ops.add_gemm("attention dQ", weighted, OpKind::attention);
  ops.add_gemm("attention dK", weighted, OpKind::attention);
}

void forward_or_backward(const LayerOpInputs& in, bool backward, Ops& ops) {
  const ModelSpec& m = *in.model;
  const double t = in.tensor;
  const double a = in.act_bytes;
  const double tok = in.tokens;
  const bool frozen = in.frozen_base;
  // QLoRA: the matmuls read the dequantized dtype copy; the dequantization reads the NF4 weights
  // and writes that copy (bitsandbytes), once per pass.
  const double wb = in.dequantize_weights ? a : in.weight_bytes;
  if (m.is_plain() || m.hidden == 0 || m.heads == 0) {
    // A count without a shape: 2 FLOPs per parameter per token, the weights read once.
    const LayerCosts c = layer_costs(m);
    const double flops = tok * c.fwd_flops_per_token / t * (backward ? 2 : 1);
    ops.roofline("layer", OpKind::matmul, flops, in.gpu.gemm_fraction,
                 c.linear_params * in.weight_bytes / t);
    return;
  }
  const double h = m.hidden;
  const double kvw = static_cast<double>(m.kv_heads) * m.head_dim();
  const double f = m.ffn_hidden;
  const double norm_tokens = in.sequence_parallel ? tok / t : tok;
  if (in.dequantize_weights) {
    ops.memory("dequantize",
               layer_costs(m).linear_params / t * (in.weight_bytes + a) / (backward ? 2 : 1));
  }
  // Attention half.
  ops.memory("attention norm", 2 * norm_tokens * h * a);
  ops.gemm("qkv", {1, tok, (h + 2 * kvw) / t, h, a, wb, a}, OpKind::matmul, frozen);
  ops.memory("rotary", 2 * tok * (h + kvw) / t * a);
  attention_core(in, backward, ops);
  ops.gemm("attention out", {1, tok, h, h / t, a, wb, a}, OpKind::matmul, frozen);
  ops.memory("attention residual", 3 * norm_tokens * h * a);
  // MLP half.
  ops.memory("mlp norm", 2 * norm_tokens * h * a);
  const double up_width = (m.gated_ffn ? 2 : 1) * f / t;
  const double act_bytes = (m.gated_ffn ? 3 : 2) * f / t * a;
  if (m.is_moe()) {
    ops.gemm("router", {1, tok, static_cast<double>(m.experts), h, a, a, a});
    // This GPU's experts (experts / EP) take tokens × top-k token-expert pairs in all,
    // balanced; with fewer pairs than experts only that many experts' weights are read.
    const double local = static_cast<double>(m.experts) / in.expert;
    const double pairs = tok * m.experts_per_token;
    const double touched = std::max(1.0, std::min(local, pairs));
    const double per_expert = pairs / touched;
    ops.gemm("experts up", {touched, per_expert, up_width, h, a, wb, a}, OpKind::matmul, frozen);
    ops.memory("experts activation", pairs * act_bytes);
    ops.gemm("experts down", {touched, per_expert, h, f / t, a, wb, a}, OpKind::matmul, frozen);
  } else {
    ops.gemm("mlp up", {1, tok, up_width, h, a, wb, a}, OpKind::matmul, frozen);
    ops.memory("mlp activation", tok * act_bytes);
    ops.gemm("mlp down", {1, tok, h, f / t, a, wb, a}, OpKind::matmul, frozen);
  }
  ops.memory("mlp residual", 3 * norm_tokens * h * a);
  if (in.active_adapters > 0) {
    // LoRA: x·A then (x·A)·B on each target module: 2 FLOPs per adapter parameter a token
    // passes through; backward twice that (input and adapter gradients).
    ops.roofline("lora", OpKind::matmul, 2 * tok * in.active_adapters / t * (backward ? 2 : 1),
                 in.gpu.gemm_fraction, in.adapters / t * a * (backward ? 3 : 1));
  }
}

}  // namespace

const char* to_string(OpKind kind) {
  switch (kind) {
    case OpKind::matmul:
      return "matmul";
    case OpKind::attention:
      return "attention";
    case OpKind::memory:
      return "memory-bound";
    case OpKind::lm_head:
      return "LM head, loss, embedding";
    case OpKind::optimizer:
      return "optimizer";
  }
  return "?";
}

std::vector<OpCost> layer_ops(const LayerOpInputs& in, bool backward) {
  std::vector<OpCost> out;
  if (backward && in.recompute == Recompute::full) {
    Ops again(in, false);
    forward_or_backward(in, false, again);
    out = again.take();
  }
  if (backward && in.recompute == Recompute::selective && !in.model->is_plain() &&
      in.model->heads > 0) {
    Ops again(in, false);
    attention_core(in, false, again);
    out = again.take();
  }
  Ops ops(in, backward);
  forward_or_backward(in, backward, ops);
  for (auto& op : ops.take())
    out.push_back(std::move(op));
  return out;
}

std::vector<OpCost> first_stage_ops(const LayerOpInputs& in, bool backward) {
  const ModelSpec& m = *in.model;
  if (m.is_plain() || m.vocab == 0 || m.hidden == 0) return {};
  const double a = in.act_bytes;
  const double rows = in.tokens * m.hidden * a;
  Ops ops(in, false);
  if (!backward) {
    ops.memory("embedding", 2 * rows, OpKind::lm_head);  // gather the rows, write them out
  } else if (!in.frozen_base) {
    // The dense gradient of this rank's vocabulary shard written (zeroed), then the tokens'
    // gradients read and scatter-added into their rows.
    ops.memory("embedding gradient",
               m.vocab / static_cast<double>(in.tensor) * m.hidden * a + 3 * rows, OpKind::lm_head);
  }
  return ops.take();
}

std::vector<OpCost> last_stage_ops(const LayerOpInputs& in, bool backward) {
  const ModelSpec& m = *in.model;
  if (m.is_plain() || m.vocab == 0 || m.hidden == 0) return {};
  const double a = in.act_bytes;
  const double h = m.hidden;
  const double vocab = m.vocab / static_cast<double>(in.tensor);
  // Training scores every position; inference only the last of each sequence (vLLM, TGI).
  const double scored = in.training ? in.tokens : in.sequences;
  Ops ops(in, backward);
  ops.memory("final norm", 2 * in.tokens * h * a, OpKind::lm_head);
  ops.gemm("lm head", {1, scored, vocab, h, a, a, a}, OpKind::lm_head, in.frozen_base);
  if (in.training) {
    // Vocab-parallel cross-entropy in fp32: logits read, softmax kept (4 B); the backward's
    // doubling reads it back and writes the logits' gradient.
    ops.memory("loss", scored * vocab * (a + 4), OpKind::lm_head);
  } else {
    ops.memory("logits read", scored * vocab * a, OpKind::lm_head);  // sampling
  }
  return ops.take();
}

double adam_bytes_per_param(double dtype_bytes) {
  const double moments = 16;
  const double weights = dtype_bytes < 4 ? 8 + dtype_bytes : 2 * dtype_bytes;
  return moments + dtype_bytes + weights;
}

double total_seconds(const std::vector<OpCost>& ops) {
  double s = 0;
  for (const auto& op : ops)
    s += op.seconds;
  return s;
}

}  // namespace linksim::work
