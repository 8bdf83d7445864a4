#include "calibrate/measured_node.hpp"

#include <algorithm>

#include "calibrate/node_skeleton.hpp"
#include "calibrate/record.hpp"

namespace linksim::calibrate {

FitMachineResult fit_measured_node(const ProbeResult& measured,
                                   const std::optional<topo::SmiMatrix>& smi,
                                   const MeasuredNodeFiles& files) {
  SkeletonInputs inputs;
  inputs.devices = measured.devices;
  inputs.smi = smi;
  inputs.hbm_bandwidth_Bps.assign(measured.devices.size(), 0);
  inputs.peak_fp32_tflops.assign(measured.devices.size(), 0);
  for (const auto& r : measured.records) {
    if (r.src_gpu < 0 || static_cast<std::size_t>(r.src_gpu) >= measured.devices.size()) continue;
    const auto g = static_cast<std::size_t>(r.src_gpu);
    if (r.kind == kind::d2d) {
      inputs.hbm_bandwidth_Bps[g] = std::max(inputs.hbm_bandwidth_Bps[g], r.bandwidth_Bps);
    }
    if (r.kind == kind::gemm) inputs.peak_fp32_tflops[g] = r.flops_per_s / 1e12;
  }
  FitMachineOptions o;
  o.topology = files.machine;
  o.topology_document = node_skeleton(inputs);
  o.date = files.date;
  o.extra_records = measured.records;
  for (auto& r : o.extra_records)
    r.source_file = files.measurements;
  return fit_machine(o);
}

}  // namespace linksim::calibrate
