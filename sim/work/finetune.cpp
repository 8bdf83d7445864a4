#include "sim/work/finetune.hpp"

#include <algorithm>

namespace linksim::work {
namespace {

// r·(d_in + d_out) of one module; `ffn` says whether it is an FFN matrix (one per expert).
struct ModuleShape {
  double in_plus_out = 0;
  bool ffn = false;
};

ModuleShape shape(const ModelSpec& m, const std::string& name) {
  const double h = m.hidden;
  const double kv = static_cast<double>(m.kv_heads) * m.head_dim();
  const double f = m.ffn_hidden;
  if (name == "q_proj" || name == "o_proj") return {2 * h, false};
  if (name == "k_proj" || name == "v_proj") return {h + kv, false};
  if (name == "gate_proj") return {m.gated_ffn ? h + f : 0, true};
  if (name == "up_proj" || name == "down_proj") return {h + f, true};
  return {};
}

double adapter_params(const ModelSpec& m, const Finetune& ft, double experts) {
  if (!ft.adapters() || m.is_plain()) return 0;
  double total = 0;
  for (const auto& name : ft.target_modules) {
    const ModuleShape s = shape(m, name);
    total += ft.rank * s.in_plus_out * (s.ffn ? experts : 1);
  }
  return total;
}

}  // namespace

const std::vector<std::string>& lora_module_names() {
  static const std::vector<std::string> names = {"q_proj",    "k_proj",  "v_proj",   "o_proj",
                                                 "gate_proj", "up_proj", "down_proj"};
  return names;
}

double adapter_params_per_layer(const ModelSpec& m, const Finetune& ft) {
  return adapter_params(m, ft, m.is_moe() ? m.experts : 1);
}

double active_adapter_params_per_layer(const ModelSpec& m, const Finetune& ft) {
  return adapter_params(m, ft, m.is_moe() ? m.experts_per_token : 1);
}

}  // namespace linksim::work
