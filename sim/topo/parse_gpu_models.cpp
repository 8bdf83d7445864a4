// The "gpu_models" section: GPU models a machine file defines for itself, beside the catalog's.
#include <fmt/format.h>

#include <set>

#include "sim/topo/loader_sections.hpp"

namespace linksim::topo {
namespace {

GpuModel parse_gpu_model(const std::string& name, const JsonView& v) {
  v.expect_only({"architecture", "memory", "hbm_bandwidth", "peak_tflops", "nvlink_generation",
                 "nvlink_links", "pcie_generation", "pcie_width", "pcie_p2p", "sm_count", "source",
                 "tdp_w", "tdp_source"});
  GpuModel m;
  m.name = name;
  m.architecture = v.string_or("architecture", "");
  m.memory_bytes = v.at("memory").as_bytes();
  if (!(m.memory_bytes > 0)) v.at("memory").fail("memory must be positive");
  m.hbm_bandwidth_Bps = bandwidth_field(v.at("hbm_bandwidth"));
  for (const auto& [dtype, tf] : v.at("peak_tflops").members()) {
    static const std::set<std::string> kDtypes{"fp64", "fp32", "tf32", "fp16",
                                               "bf16", "fp8",  "int8"};
    if (kDtypes.count(dtype) == 0) {
      tf.fail(
          fmt::format("unknown dtype \"{}\"; expected one of fp64, fp32, tf32, fp16, bf16, "
                      "fp8, int8",
                      dtype));
    }
    const double t = tf.as_number();
    if (!(t > 0) || t > 1e5) tf.fail("peak TFLOP/s must be between 0 and 100000");
    m.peak_flops[dtype] = t * 1e12;
  }
  m.nvlink_generation = static_cast<int>(v.integer_or("nvlink_generation", 0));
  m.nvlink_links = static_cast<int>(v.integer_or("nvlink_links", 0));
  m.pcie_generation = static_cast<int>(v.integer_or("pcie_generation", 4));
  m.pcie_width = static_cast<int>(v.integer_or("pcie_width", 16));
  m.pcie_p2p = v.bool_or("pcie_p2p", true);
  m.sm_count = static_cast<int>(v.integer_or("sm_count", 0));
  m.source = v.string_or("source", "");
  if (auto tdp = v.get("tdp_w")) {
    m.tdp_w = tdp->as_number();
    if (!(m.tdp_w > 0) || m.tdp_w > 1e5) tdp->fail("tdp_w must be between 0 and 100000 watts");
  }
  m.tdp_source = v.string_or("tdp_source", "");
  return m;
}

}  // namespace

GpuModels parse_gpu_models(const std::optional<JsonView>& gpu_models_view) {
  GpuModels models;
  if (!gpu_models_view) return models;
  for (const auto& [name, mv] : gpu_models_view->members())
    models.emplace(name, parse_gpu_model(name, mv));
  return models;
}

}  // namespace linksim::topo
