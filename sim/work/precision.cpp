#include "sim/work/precision.hpp"

#include <stdexcept>

#include "sim/work/model.hpp"

namespace linksim::work {

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
