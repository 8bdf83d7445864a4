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
    gemm(name, s, kind, frozen, false);
  }
  // A linear layer's GEMM: in FP8 with precision.matmul "fp8" (Transformer Engine's Linear,
  // LayerNormLinear: E4M3 inputs and weights forward, E5M2 gradients backward, bf16 outputs),
  // else as gemm().
  void linear(const std::string& name, const GemmShape& s, bool frozen) {
    gemm(name, s, OpKind::matmul, frozen, in_.fp8);
  }
  // A batched GEMM whose backward the caller lists itself (unfused attention).
  void add_gemm(const std::string& name, const GemmShape& s, OpKind kind, bool fp8 = false) {
    GpuRates rates = in_.gpu;
    if (fp8) {
      rates.peak_flops = in_.fp8_peak_flops;
      rates.gemm_fraction = in_.fp8_gemm_fraction;
    }
    const GemmTime t = gemm_time(s, rates);
    ops_.push_back({name, kind, s.flops(), s.bytes(), t.seconds});
  }
  // A memory-bound op of `bytes` forward; twice that backward.
  void memory(const std::string& name, double bytes, OpKind kind = OpKind::memory) {
    const double b = backward_ ? 2 * bytes : bytes;
    ops_.push_back({name, kind, 0, b, memory_time_s(b, in_.gpu)});
  }
  // A memory-bound kernel of `bytes` in whichever pass (TE's FP8 casts: each pass lists its own).
  void kernel(const std::string& name, double bytes) {
    if (bytes > 0) ops_.push_back({name, OpKind::memory, 0, bytes, memory_time_s(bytes, in_.gpu)});
  }
  bool backward() const { return backward_; }
  void add_timed(const std::string& name, OpKind kind, double flops, double bytes, double seconds) {
    ops_.push_back({name, kind, flops, bytes, seconds});
  }
  void roofline(const std::string& name, OpKind kind, double flops, double fraction, double bytes) {
    ops_.push_back({name, kind, flops, bytes, roofline_time_s(flops, fraction, bytes, in_.gpu)});
  }
  std::vector<OpCost> take() { return std::move(ops_); }

 private:
  void gemm(const std::string& name, const GemmShape& s, OpKind kind, bool frozen, bool fp8) {
    // FP8 operands are one byte each (the weights: TE's cached FP8 copy and its transpose).
    const double op = fp8 ? 1 : in_.act_bytes;
    if (!backward_) {
      GemmShape f = s;
      if (fp8) f.a_bytes = f.b_bytes = 1;
      add_gemm(name, f, kind, fp8);
      return;
    }
    // dX = dY·Wᵀ: M×K from M×N and N×K.
    GemmShape dx = s;
    dx.n = s.k;
    dx.k = s.n;
    dx.a_bytes = op;
    if (fp8) dx.b_bytes = 1;
    add_gemm(name + " dX", dx, kind, fp8);
    if (frozen) return;
    // dW = Xᵀ·dY: K×N from K×M and M×N, written in the dtype.
    GemmShape dw = s;
    dw.m = s.k;
    dw.k = s.m;
    dw.a_bytes = op;
    dw.b_bytes = op;
    dw.c_bytes = in_.act_bytes;
    add_gemm(name + " dW", dw, kind, fp8);
  }

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
      ops.roofline("attention", OpKind::attention, 2.5 * fwd_flops,
                   in.gpu.attention_backward_fraction, 2 * qkv + 2 * o + lse);
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

// Transformer Engine's casts to FP8 around one layer's linear GEMMs (precision.matmul "fp8"),
// as Megatron-LM's TE layer spec runs them (megatron/core/models/gpt/gpt_layer_specs.py):
// QKV and the MLP's first GEMM are TELayerNormColumnParallelLinear, whose norm writes its output
// in FP8 (no cast of its own); the attention output and the MLP's second GEMM are
// TERowParallelLinear, which casts its bf16 input (Megatron's activation runs outside TE); MoE
// experts are TE Linear layers behind the router, each casting its input. Read in the model's
// dtype, written as FP8 (1 B) plus, in training, its FP8 transpose for the weight gradient (1 B:
// Hopper's FP8 GEMMs take only K-major operands, TE's fp8_cast_transpose_fused); the amax is
// taken in the same pass. Backward: each GEMM's output gradient cast and transposed likewise
// (E5M2; with sequence parallelism the row-parallel layers' gradient is cast on this rank's
// tokens, all-gathered in FP8, then transposed: TE's grad_output_preprocess), and the saved
// FP8 norm outputs transposed for QKV's and the MLP's first weight gradients (fp8_transpose,
// 1 B read and written). The weights are cast (and transposed) on a step's first micro-batch
// only and kept (is_first_microbatch): `weights` false leaves them out (recomputation).
void fp8_casts(const LayerOpInputs& in, bool weights, Ops& ops) {
  const ModelSpec& m = *in.model;
  const double t = in.tensor;
  const double a = in.act_bytes;
  const double tok = in.tokens;
  const double h = m.hidden;
  const double kvw = static_cast<double>(m.kv_heads) * m.head_dim();
  const double f = m.ffn_hidden;
  const double up_width = (m.gated_ffn ? 2 : 1) * f / t;
  const double pairs = tok * m.experts_per_token;
  if (!ops.backward()) {
    const double cast = a + 1 + (in.training ? 1 : 0);  // per element
    if (weights) {
      const LayerCosts c = layer_costs(m);
      const double local =
          (c.linear_params - c.expert_params) / t + c.expert_params / t / in.expert;
      ops.kernel("fp8 weight cast", local * cast * in.weight_casts_per_micro_batch);
    }
    ops.kernel("attention out fp8 cast", tok * h / t * cast);
    if (m.is_moe()) {
      ops.kernel("experts up fp8 cast", pairs * h * cast);
      ops.kernel("experts down fp8 cast", pairs * f / t * cast);
    } else {
      ops.kernel("mlp down fp8 cast", tok * f / t * cast);
    }
    return;
  }
  const double cast_t = a + 2;  // read, FP8 and its transpose written
  // A row-parallel layer's output gradient (h wide, every token).
  const double row_grad = in.sequence_parallel && in.tensor > 1
                              ? tok / t * h * (a + 1) + tok * h * 2
                              : tok * h * cast_t;
  ops.kernel("attention out dY fp8 cast", row_grad);
  ops.kernel("qkv dY fp8 cast", tok * (h + 2 * kvw) / t * cast_t);
  ops.kernel("qkv input fp8 transpose", tok * h * 2);
  if (m.is_moe()) {
    ops.kernel("experts down dY fp8 cast", pairs * h * cast_t);
    ops.kernel("experts up dY fp8 cast", pairs * up_width * cast_t);
  } else {
    ops.kernel("mlp down dY fp8 cast", row_grad);
    ops.kernel("mlp up dY fp8 cast", tok * up_width * cast_t);
    ops.kernel("mlp up input fp8 transpose", tok * h * 2);
  }
}

void forward_or_backward(const LayerOpInputs& in, bool backward, Ops& ops,
                         bool recomputing = false) {
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
    if (in.fp8) {
      // FP8: the same at the FP8 peak, the weights read as their FP8 copy; no shapes, no casts.
      GpuRates rates = in.gpu;
      rates.peak_flops = in.fp8_peak_flops;
      const double bytes = c.linear_params / t;
      ops.add_timed("layer", OpKind::matmul, flops, bytes,
                    roofline_time_s(flops, in.fp8_gemm_fraction, bytes, rates));
      return;
    }
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
  ops.linear("qkv", {1, tok, (h + 2 * kvw) / t, h, a, wb, a}, frozen);
  ops.memory("rotary", 2 * tok * (h + kvw) / t * a);
  attention_core(in, backward, ops);
  ops.linear("attention out", {1, tok, h, h / t, a, wb, a}, frozen);
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
    ops.linear("experts up", {touched, per_expert, up_width, h, a, wb, a}, frozen);
    ops.memory("experts activation", pairs * act_bytes);
    ops.linear("experts down", {touched, per_expert, h, f / t, a, wb, a}, frozen);
  } else {
    ops.linear("mlp up", {1, tok, up_width, h, a, wb, a}, frozen);
    ops.memory("mlp activation", tok * act_bytes);
    ops.linear("mlp down", {1, tok, h, f / t, a, wb, a}, frozen);
  }
  ops.memory("mlp residual", 3 * norm_tokens * h * a);
  if (in.active_adapters > 0) {
    // LoRA: x·A then (x·A)·B on each target module: 2 FLOPs per adapter parameter a token
    // passes through; backward twice that (input and adapter gradients).
    ops.roofline("lora", OpKind::matmul, 2 * tok * in.active_adapters / t * (backward ? 2 : 1),
                 in.gpu.gemm_fraction, in.adapters / t * a * (backward ? 3 : 1));
  }
  if (in.fp8) fp8_casts(in, !recomputing, ops);
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
    forward_or_backward(in, false, again, true);
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

double total_seconds(const std::vector<OpCost>& ops) {
  double s = 0;
  for (const auto& op : ops)
    s += op.seconds;
  return s;
}

}  // namespace linksim::work
