#pragma once
// What `linksim calibrate` makes of a node it has measured: the node's skeleton (its GPUs, their
// memory rate and FLOP rate from the probe's own records, NVLinks from nvidia-smi) fitted to the
// measurements, as one library call.

#include <optional>
#include <string>

#include "calibrate/fit_machine.hpp"
#include "calibrate/probe.hpp"
#include "sim/topo/smi_matrix.hpp"

namespace linksim::calibrate {

struct MeasuredNodeFiles {
  std::string machine;       // the machine file that will be written (named in the fit)
  std::string measurements;  // the measurements file the records will be written to
  std::string date;          // recorded in the files; may be empty
};

// Each device's memory rate is its largest device-to-device copy and its FP32 rate its GEMM
// record; a device without one has 0 (the skeleton's default then applies). Throws InputError
// for a node the fit cannot use.
FitMachineResult fit_measured_node(const ProbeResult& measured,
                                   const std::optional<topo::SmiMatrix>& smi,
                                   const MeasuredNodeFiles& files);

}  // namespace linksim::calibrate
