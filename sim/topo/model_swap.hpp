#pragma once
// "What if the same box had other GPUs?": a machine file with "base" swaps GPU models of its base
// ("replace_models"). A swapped GPU brings its own interconnect, or the swap is refused: the
// base's figures never silently outlive the GPU they were drawn for (H100 -> B200 must not keep
// NVLink 4 at 450 GB/s per direction).

#include "sim/core/json_view.hpp"
#include "sim/topo/topology.hpp"

namespace linksim::topo {

// Swaps the GPU models `replace` maps ({"old model": "catalog model"}) in `topo`, a machine taken
// from a base file. For every swapped GPU whose new model differs from the old one in NVLink
// generation or link count:
//  - the base must wire it to exactly the new model's NVLink link count, every one of those
//    links at its kind's default figures and ending at an NVSwitch or at a GPU swapped to the
//    same model; then each link is re-rated at the new model's NVLink generation (the links and
//    switches stay, the per-link rate is the new generation's);
//  - a GPU the base gives no NVLink keeps none (a PCIe box stays a PCIe box).
// A GPU's own PCIe links run at the lower of the link's and the new model's PCIe generation
// (re-rated when the link carries default figures). Anything else throws InputError at
// /replace_models/<old model>, saying what differs.
void replace_gpu_models(const JsonView& replace, Topology& topo);

}  // namespace linksim::topo
