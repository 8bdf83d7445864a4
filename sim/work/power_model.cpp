#include "sim/work/power_model.hpp"

namespace linksim::work {

// Data table: one row per constant, read together; not split. Ranges are what the energy range
// runs at its ends; none is fitted to a training-throughput source.
const std::vector<PowerConstant>& power_constant_table() {
  static const std::vector<PowerConstant> table = {
      {"idle_fraction",
       0.10,
       {0.05, 0.15},
       "An assumption, stated as one: no datasheet gives a GPU's idle power. 10% of the board "
       "power, with a range of 5-15%"},
      {"compute_activity",
       1.00,
       {0.85, 1.00},
       "GEMM-bound training kernels run at the power limit: A100 and H100 clocks throttle to hold "
       "TDP under dense tensor-core load (NVIDIA H100 datasheet, 'up to 700 W'; clocks below boost "
       "under load). Low end 0.85 for kernels that do not reach the cap (attention, memory-bound "
       "work, which the compute time includes)"},
      {"wait_activity",
       0.30,
       {0.15, 0.50},
       "An assumption, stated as one: a GPU in exposed communication or waiting on a peer runs "
       "NCCL kernels that spin a few SMs and move data through HBM and the links, well above idle "
       "and well below a GEMM. Newkirk et al. ('Empirically-calibrated H100 node power models', "
       "arXiv:2506.14551, 2025) see transformer training's node power fall and rise with its "
       "communication phases; no per-phase figure was found, so the range is wide"},
      {"host_load_share",
       0.60,
       {0.40, 1.00},
       "Fitted once, on one public measurement: Latif et al. ('Empirical measurements of AI "
       "training power demand on a GPU-accelerated node', arXiv:2412.08602, IEEE Access 2025) "
       "measured at most 8.4 kW on an 8x H100 HGX node training near full utilisation, against "
       "its 10.2 kW rating. With the GPUs at 700 W (5.6 kW) the host drew at most 2.8 of its "
       "4.6 kW non-GPU budget: 0.6. Newkirk et al. (2025) put intensive training at 76% of the "
       "rating (7.75 kW): 0.47. Range 0.4 to the full rating (1.0)"},
  };
  return table;
}

PowerConstants power_constants(PowerEnd end) {
  const auto& t = power_constant_table();
  const auto pick = [end](const PowerConstant& c) {
    switch (end) {
      case PowerEnd::low:
        return c.range.lo;
      case PowerEnd::high:
        return c.range.hi;
      case PowerEnd::point:
        break;
    }
    return c.value;
  };
  return PowerConstants{pick(t[0]), pick(t[1]), pick(t[2]), pick(t[3])};
}

double step_energy_j(const PoweredMachines& machines, double step_s, double compute_s,
                     const PowerConstants& constants) {
  const double tdp = machines.gpu_tdp_w;
  const double idle_w = constants.idle_fraction * tdp;
  const double compute_w = idle_w + (tdp - idle_w) * constants.compute_activity;
  const double wait_w = idle_w + (tdp - idle_w) * constants.wait_activity;
  const double busy_gpu_j = compute_s * compute_w + (step_s - compute_s) * wait_w;
  double joules = machines.busy_gpus * busy_gpu_j +
                  (machines.powered_gpus - machines.busy_gpus) * idle_w * step_s;
  if (machines.host_non_gpu_w) {
    joules += machines.hosts * constants.host_load_share * *machines.host_non_gpu_w * step_s;
  }
  return joules;
}

}  // namespace linksim::work
