#include "sim/work/scenario_parts.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

namespace linksim::work {
namespace {

int int_in(const JsonView& v, std::int64_t lo, std::int64_t hi) {
  const auto i = v.as_integer();
  if (i < lo || i > hi) v.fail(fmt::format("expected an integer from {} to {}", lo, hi));
  return static_cast<int>(i);
}

std::string one_of(const JsonView& v, const std::vector<std::string>& names, const char* what) {
  const std::string s = v.as_string();
  if (std::find(names.begin(), names.end(), s) == names.end()) {
    v.fail(fmt::format("unknown {} \"{}\"; expected one of: {}", what, s, fmt::join(names, ", ")));
  }
  return s;
}

// A token count: an integer, or {"min": a, "max": b} drawn uniformly.
LengthRange length_range(const JsonView& v) {
  constexpr int kMaxTokens = 10'000'000;
  if (v.is_number()) {
    const int n = int_in(v, 1, kMaxTokens);
    return {n, n};
  }
  if (!v.is_object()) v.fail("expected a token count or {\"min\": ..., \"max\": ...}");
  v.expect_only({"min", "max"});
  LengthRange r;
  r.min = int_in(v.at("min"), 1, kMaxTokens);
  r.max = int_in(v.at("max"), 1, kMaxTokens);
  if (r.max < r.min) v.at("max").fail(fmt::format("expected max >= min ({})", r.min));
  return r;
}

// An SLO bound: seconds, a number above 0.
double slo_seconds(const JsonView& v) {
  if (!v.is_number()) {
    v.fail(fmt::format("expected a time in seconds above 0 (a number), got {}",
                       json_type_name(v.raw())));
  }
  const double s = v.as_number();
  if (!(s > 0)) v.fail(fmt::format("expected a time in seconds above 0, got {:g}", s));
  return s;
}

}  // namespace

ServingSlo parse_slo(const JsonView& view) {
  if (!view.is_object()) {
    view.fail(
        fmt::format("expected an object with ttft_p99_s, tpot_p99_s and optionally "
                    "e2e_p99_s, got {}",
                    json_type_name(view.raw())));
  }
  view.expect_only({"ttft_p99_s", "tpot_p99_s", "e2e_p99_s"});
  ServingSlo slo;
  slo.ttft_p99_s = slo_seconds(view.at("ttft_p99_s"));
  slo.tpot_p99_s = slo_seconds(view.at("tpot_p99_s"));
  if (auto e = view.get("e2e_p99_s")) slo.e2e_p99_s = slo_seconds(*e);
  return slo;
}

std::string_view to_string(Recompute recompute) {
  switch (recompute) {
    case Recompute::none:
      return "none";
    case Recompute::selective:
      return "selective";
    case Recompute::full:
      return "full";
  }
  return "?";
}

Finetune parse_finetune(const JsonView& view) {
  view.expect_only({"method", "rank", "target_modules"});
  Finetune f;
  const std::string method = one_of(view.at("method"), {"full", "lora", "qlora"}, "method");
  f.method = method == "lora"    ? FinetuneMethod::lora
             : method == "qlora" ? FinetuneMethod::qlora
                                 : FinetuneMethod::full;
  if (!f.adapters()) {
    for (const char* key : {"rank", "target_modules"}) {
      if (auto v = view.get(key)) v->fail(fmt::format("\"{}\" applies to lora and qlora", key));
    }
    return f;
  }
  if (auto r = view.get("rank")) f.rank = int_in(*r, 1, 65536);
  if (auto t = view.get("target_modules")) {
    f.target_modules.clear();
    std::set<std::string> seen;
    for (const auto& e : t->elements()) {
      const std::string name = one_of(e, lora_module_names(), "target module");
      if (!seen.insert(name).second) e.fail(fmt::format("target module \"{}\" named twice", name));
      f.target_modules.push_back(name);
    }
    if (f.target_modules.empty()) t->fail("expected at least one target module");
  }
  return f;
}

Precision parse_precision(const JsonView& view) {
  view.expect_only({"dtype", "weights", "group_size", "kv_cache", "matmul", "optimizer_states",
                    "master_weights"});
  Precision p;
  if (auto d = view.get("dtype")) p.dtype = one_of(*d, model_dtype_names(), "model dtype");
  if (auto w = view.get("weights")) p.weights = one_of(*w, weight_format_names(), "weight format");
  if (auto g = view.get("group_size")) {
    if (p.weights != "int8" && p.weights != "int4") {
      g->fail("\"group_size\" applies to int8 and int4 weights (expected weights int8 or int4)");
    }
    p.group_size = int_in(*g, 1, 1'000'000);
  }
  if (auto k = view.get("kv_cache")) p.kv_cache = one_of(*k, kv_cache_dtype_names(), "KV dtype");
  if (auto m = view.get("matmul"))
    p.matmul = one_of(*m, matmul_precision_names(), "matmul precision");
  if (auto o = view.get("optimizer_states"))
    p.optimizer_states = one_of(*o, optimizer_state_dtype_names(), "optimizer state dtype");
  if (auto w = view.get("master_weights"))
    p.master_weights = one_of(*w, master_weight_names(), "master weights");
  return p;
}

ServingLoad parse_serving(const JsonView& job) {
  ServingLoad s;
  if (auto slo = job.get("slo")) s.slo = parse_slo(*slo);
  // With an SLO the rate may be left to the capacity search; without one it is the load.
  const std::optional<JsonView> rate = job.get("request_rate");
  if (!rate && !s.slo) job.at("request_rate");  // refused: "missing required field"
  if (rate) {
    s.request_rate_per_s = rate->as_number();
    if (!(s.request_rate_per_s > 0) || s.request_rate_per_s > 1e6) {
      rate->fail("expected requests per second above 0, at most 1e6");
    }
  } else {
    s.rate_stated = false;
  }
  if (auto r = job.get("requests")) s.requests = int_in(*r, 1, 100'000);
  if (auto i = job.get("input_tokens")) s.input_tokens = length_range(*i);
  if (auto o = job.get("output_tokens")) s.output_tokens = length_range(*o);
  if (auto m = job.get("max_batch")) s.max_batch = int_in(*m, 1, 100'000);
  if (auto seed = job.get("seed")) s.seed = static_cast<std::uint64_t>(int_in(*seed, 0, 1 << 30));
  return s;
}

Recompute parse_recompute(const JsonView& view) {
  if (!view.is_string()) return view.as_bool() ? Recompute::full : Recompute::none;
  const std::string s = view.as_string();
  if (s == "none") return Recompute::none;
  if (s == "selective") return Recompute::selective;
  if (s == "full") return Recompute::full;
  view.fail(fmt::format(
      "unknown recompute \"{}\"; expected true, false, \"none\", \"selective\" or \"full\"", s));
}

void check_precision_and_finetune(const JsonView& root, const Job& job) {
  const std::string& w = job.precision.weights;
  const bool quantized = !w.empty() && w != "bf16" && w != "fp16" && w != "fp32";
  if (job.finetune.adapters() && job.kind != JobKind::training) {
    root.at("job").at("finetune").fail("\"finetune\" with adapters applies to a training job");
  }
  if (job.kind == JobKind::training && !job.finetune.adapters() && quantized) {
    root.at("precision")
        .at("weights")
        .fail(fmt::format(
            "training updates every weight, which {} cannot hold; expected a LoRA or QLoRA job "
            "(job.finetune) to train adapters on a quantized base",
            w));
  }
  if (job.finetune.method == FinetuneMethod::qlora && !w.empty() && w != "nf4" && w != "int4") {
    root.at("precision")
        .at("weights")
        .fail(fmt::format(
            "QLoRA's base is 4-bit; expected weights nf4 (its default) or int4, got {}", w));
  }
}

void check_optimizer_precision(const JsonView& root, const Job& job,
                               const std::string& model_dtype) {
  const Precision& p = job.precision;
  auto training_only = [&](const std::string& value, const char* key) {
    if (value.empty() || job.kind == JobKind::training) return;
    root.at("precision")
        .at(key)
        .fail(fmt::format("Adam's state applies to a training job, not {}", to_string(job.kind)));
  };
  training_only(p.optimizer_states, "optimizer_states");
  training_only(p.master_weights, "master_weights");
  const std::string& w = p.master_weights;
  if (w.empty() || w == "none") return;
  const JsonView at = root.at("precision").at("master_weights");
  if (dtype_bytes(model_dtype) >= 4) {
    at.fail(fmt::format(
        "an {} model's weights are their own master copy; expected no master_weights or \"none\"",
        model_dtype));
  }
  if (w == "remainder" &&
      (model_dtype != "bf16" || (!p.optimizer_states.empty() && p.optimizer_states != "fp32"))) {
    at.fail(fmt::format(
        "\"remainder\" keeps the 16 bits a bf16 weight lacks of its fp32 value (Apex's "
        "store_param_remainders); expected a bf16 model and fp32 optimizer_states, got model "
        "dtype {} and {} states",
        model_dtype, p.optimizer_states.empty() ? "fp32" : p.optimizer_states));
  }
}

void check_matmul_precision(const JsonView& root, const Job& job, const std::string& model_dtype,
                            bool efficiency_override) {
  const std::string& m = job.precision.matmul;
  if (m.empty() || m == model_dtype) return;
  const JsonView at = root.at("precision").at("matmul");
  if (m != "fp8") {
    at.fail(fmt::format("expected \"fp8\" or the model's dtype ({}), got {}", model_dtype, m));
  }
  if (model_dtype != "bf16" && model_dtype != "fp16") {
    at.fail(fmt::format(
        "FP8 matmuls (Transformer Engine) keep bf16 or fp16 activations and weights beside "
        "them; the model's dtype is {}",
        model_dtype));
  }
  if (job.kind != JobKind::training && job.kind != JobKind::prefill) {
    at.fail(
        fmt::format("\"fp8\" applies to a training or prefill job, not {}", to_string(job.kind)));
  }
  if (job.precision.quantized() || job.finetune.adapters()) {
    at.fail(
        "\"fp8\" is modelled for full training at the model's weights (Transformer Engine's "
        "recipe); expected no precision.weights and no LoRA/QLoRA adapters");
  }
  if (efficiency_override) {
    at.fail(
        "\"fp8\" needs the derived compute model (FP8 GEMMs beside bf16 attention and casts); "
        "compute.efficiency is one rate for every matmul: expected no compute.efficiency");
  }
}

}  // namespace linksim::work
