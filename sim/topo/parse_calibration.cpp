// The NCCL calibration sections a fit writes (`linksim fit`): "host_launch", the host's
// per-GPU launch cost, and "collective_calibration", the collective model's scales overall
// and per operation ("by_op").
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <tuple>

#include "sim/topo/loader_sections.hpp"

namespace linksim::topo {

void parse_host_launch(const JsonView& host_launch_view, HostLaunch& out) {
  const JsonView& hv = host_launch_view;
  hv.expect_only({"per_gpu", "range", "source"});
  out.per_gpu_s = latency_field(hv.at("per_gpu"));
  if (auto r = hv.get("range")) {
    out.range_s = range_field(*r, out.per_gpu_s, latency_field, "host_launch.per_gpu");
  }
  out.source = hv.string_or("source", "");
}

// The scales overall, then the "by_op" block: kept in one function so the per-operation
// parsing reads (and changes) in one place.
void parse_collective_calibration(const JsonView& calibration_view,
                                  CollectiveCalibration& collective) {
  const JsonView& cv = calibration_view;
  cv.expect_only({"latency_scale", "bandwidth_scale", "latency_scale_range",
                  "bandwidth_scale_range", "ll_scale", "ll_scale_range", "ll128_scale",
                  "ll128_scale_range", "by_op", "source"});
  const auto scale = [](const JsonView& x) {
    const double value = x.as_number();
    if (!(value >= 0.05 && value <= 20)) x.fail("expected a scale between 0.05 and 20");
    return value;
  };
  auto scales = [&](const JsonView& v) {
    CollectiveScales out;
    for (auto [key, field, range] :
         {std::tuple{"latency_scale", &out.latency, &out.latency_range},
          std::tuple{"bandwidth_scale", &out.bandwidth, &out.bandwidth_range},
          std::tuple{"ll_scale", &out.ll, &out.ll_range},
          std::tuple{"ll128_scale", &out.ll128, &out.ll128_range}}) {
      if (auto x = v.get(key)) *field = scale(*x);
      if (auto r = v.get(std::string(key) + "_range")) {
        *range = range_field(*r, *field, scale, fmt::format("{} ({})", key, *field));
      }
    }
    return out;
  };
  collective.all = scales(cv);
  if (auto ops = cv.get("by_op")) {
    for (const auto& [op, v] : ops->members()) {
      v.expect_only({"latency_scale", "bandwidth_scale", "latency_scale_range",
                     "bandwidth_scale_range", "ll_scale", "ll_scale_range", "ll128_scale",
                     "ll128_scale_range"});
      const auto known = collective_op_from_string(op);
      if (!known || to_string(*known) != op) {
        v.fail(fmt::format("\"{}\" is not a collective operation: expected one of {}", op,
                           fmt::join(collective_op_names(), ", ")));
      }
      collective.by_op[*known] = scales(v);
    }
  }
  collective.source = cv.string_or("source", "");
}

}  // namespace linksim::topo
