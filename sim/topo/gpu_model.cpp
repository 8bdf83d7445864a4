#include "sim/topo/gpu_model.hpp"

namespace linksim::topo {

int nccl_compute_capability(const GpuModel& gpu) {
  // By architecture, and inside one architecture by die: GA100 (A100, A800, A30) is 8.0, the
  // GA10x cards (A10, A10G, A40, A6000, RTX 30xx) 8.6; GB100/GB200 10.0, the GB20x RTX cards
  // 12.0 (CUDA's compute capability table, developer.nvidia.com/cuda-gpus).
  const auto& a = gpu.architecture;
  const auto starts = [&](const char* prefix) { return gpu.name.rfind(prefix, 0) == 0; };
  if (a == "blackwell") return gpu.name.find("RTX") != std::string::npos ? 120 : 100;
  if (a == "hopper") return 90;
  if (a == "ada") return 89;
  if (a == "ampere") return starts("A100") || starts("A800") || starts("A30") ? 80 : 86;
  if (a == "turing") return 75;
  if (a == "volta") return 70;
  if (a == "pascal") return 60;
  return 80;
}

}  // namespace linksim::topo
