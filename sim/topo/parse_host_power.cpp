// "host_power": what a host draws beside its GPUs, for the energy model.
#include "sim/topo/loader_sections.hpp"

namespace linksim::topo {

HostPower parse_host_power(const JsonView& host_power_view) {
  const JsonView& v = host_power_view;
  v.expect_only({"non_gpu_w", "source"});
  HostPower p;
  p.non_gpu_w = v.at("non_gpu_w").as_number();
  if (!(p.non_gpu_w >= 0) || p.non_gpu_w > 1e6) {
    v.at("non_gpu_w").fail("expected a power in watts between 0 and 1000000");
  }
  p.source = v.at("source").as_string();
  if (p.source.empty()) v.at("source").fail("expected where the figure comes from");
  return p;
}

}  // namespace linksim::topo
