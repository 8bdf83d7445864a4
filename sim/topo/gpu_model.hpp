#pragma once
// GPU models: the figures a simulation needs from a GPU. The built-in catalog cites a public
// source for each model; a topology file may define more under "gpu_models".

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace linksim::topo {

struct GpuModel {
  std::string name;  // "A100-SXM4-80GB"
  // "volta", "turing", "ampere", "ada", "hopper", "blackwell"; "cdna3" for AMD Instinct MI300X.
  std::string architecture;
  double memory_bytes = 0;
  double hbm_bandwidth_Bps = 0;
  // Peak dense throughput per dtype in FLOP/s ("fp16", "bf16", "tf32", "fp32", "fp64", "fp8",
  // "int8"); only the dtypes the GPU supports are present.
  std::map<std::string, double> peak_flops;
  int nvlink_generation = 0;  // 0: no NVLink
  int nvlink_links = 0;       // links per GPU
  int pcie_generation = 4;
  int pcie_width = 16;
  // Whether the driver allows PCIe peer-to-peer for this GPU (GeForce cards: no).
  bool pcie_p2p = true;
  int sm_count = 0;  // streaming multiprocessors (AMD: compute units); 0 when not published
  std::string source;
  // Maximum board power (the datasheet's TDP or "max power"); 0 when not published. The energy
  // model (sim/work/power_model.hpp) reads it; nothing else does.
  double tdp_w = 0;
  std::string tdp_source;
};

// The compute capability NCCL reads from a GPU of this model (major x 10 + minor: 60 Pascal, 70
// Volta, 75 Turing, 80 GA100, 86 GA10x, 89 Ada, 90 Hopper, 100 Blackwell datacenter, 120
// Blackwell RTX), by architecture and die; 80 for a GPU NCCL does not run on (MI300X: RCCL's
// default row). NCCL picks its tables by it; the NCCL XML export writes it as "sm". The one
// rule for it (the export had a second, which disagreed on the A10).
int nccl_compute_capability(const GpuModel& gpu);

// The built-in catalog, sorted by name.
const std::map<std::string, GpuModel>& gpu_catalog();
std::optional<GpuModel> find_gpu_model(const std::string& name);
std::vector<std::string> gpu_model_names();

}  // namespace linksim::topo
