#include "sim/topo/gpu_model.hpp"

namespace linksim::topo {

int nccl_compute_capability(const GpuModel& gpu) {
  const auto& a = gpu.architecture;
  if (a == "blackwell") return 100;
  if (a == "hopper") return 90;
  if (a == "ada") return 89;
  if (a == "ampere") return gpu.nvlink_links > 0 && gpu.nvlink_links <= 4 ? 86 : 80;
  if (a == "turing") return 75;
  if (a == "volta") return 70;
  if (a == "pascal") return 60;
  return 80;
}

}  // namespace linksim::topo
