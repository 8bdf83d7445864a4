#include "sim/work/precision.hpp"

#include <stdexcept>

#include "sim/work/model.hpp"

namespace linksim::work {

const std::vector<std::string>& model_dtype_names() {
  static const std::vector<std::string> names = {"bf16", "fp16", "fp32"};
  return names;
}

const std::vector<std::string>& weight_format_names() {
  static const std::vector<std::string> names = {"bf16", "fp16", "fp32", "fp8",
                                                 "int8", "int4", "nf4"};
  return names;
}

const std::vector<std::string>& kv_cache_dtype_names() {
  static const std::vector<std::string> names = {"bf16", "fp16", "fp32", "fp8"};
  return names;
}

const std::vector<std::string>& matmul_precision_names() {
  static const std::vector<std::string> names = {"bf16", "fp16", "fp32", "fp8"};
  return names;
}

const std::vector<std::string>& optimizer_state_dtype_names() {
  static const std::vector<std::string> names = {"fp32", "bf16", "fp16"};
  return names;
}

const std::vector<std::string>& master_weight_names() {
  static const std::vector<std::string> names = {"fp32", "remainder", "none"};
  return names;
}

namespace {

// Bytes of the master copy beside the model's own weight.
double master_bytes(const Precision& precision, const std::string& model_dtype) {
  if (dtype_bytes(model_dtype) >= 4) return 0;  // the weights are fp32: they are the master
  const std::string& m = precision.master_weights;
  if (m.empty() || m == "fp32") return 4;
  if (m == "remainder") return 2;
  return 0;  // none
}

double state_bytes(const Precision& precision) {
  return precision.optimizer_states.empty() ? 4 : dtype_bytes(precision.optimizer_states);
}

}  // namespace

double optimizer_bytes_per_param(const Precision& precision, const std::string& model_dtype) {
  return 2 * state_bytes(precision) + master_bytes(precision, model_dtype);
}

double adam_step_bytes_per_param(const Precision& precision, const std::string& model_dtype) {
  const double weight = dtype_bytes(model_dtype);
  const double master = master_bytes(precision, model_dtype);
  // A full fp32 master copy is read and written and the 16-bit weight only written from it;
  // otherwise the weight itself is read and written.
  const double weight_traffic = master == 4 ? weight : 2 * weight;
  return 2 * 2 * state_bytes(precision) + weight + 2 * master + weight_traffic;
}

bool fp8_matmul(const Precision& precision, const std::string& model_dtype) {
  return precision.matmul == "fp8" && model_dtype != "fp8";
}

double weight_bytes_per_param(const std::string& format, int group_size,
                              const std::string& model_dtype) {
  if (format.empty()) return dtype_bytes(model_dtype);
  const double g = group_size;
  if (format == "int8") return 1 + 2 / g;
  if (format == "int4") return 0.5 + 2.5 / g;
  if (format == "nf4") return (4 + 8.0 / 64 + 32.0 / (64 * 256)) / 8;
  return dtype_bytes(format);  // bf16, fp16, fp32, fp8; throws for another name
}

double kv_cache_bytes_per_element(const Precision& precision, const std::string& model_dtype) {
  return dtype_bytes(precision.kv_cache.empty() ? model_dtype : precision.kv_cache);
}

}  // namespace linksim::work
