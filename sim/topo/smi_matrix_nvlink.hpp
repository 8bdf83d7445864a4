#pragma once
// The NVLink part of an `nvidia-smi topo -m` matrix as machine-file nodes and links.

#include <string>
#include <vector>

#include "sim/topo/machine_document.hpp"
#include "sim/topo/smi_matrix.hpp"

namespace linksim::topo {

// One NVSwitch plane when every GPU pair shows the same NV# and that many links to every other
// GPU exceed the GPU's `nvlink_links_per_gpu`; otherwise one bundle of NV# links per NV# pair.
// GPUs are named "gpu<i>" after their column ("GPU<i>"). `assumed` says what the printout
// could not.
struct NvlinkFabric {
  std::vector<NodeEntry> nodes;
  std::vector<LinkEntry> links;
  std::vector<std::string> assumed;
};
NvlinkFabric nvlink_fabric_from_smi(const SmiMatrix& m, int nvlink_generation,
                                    int nvlink_links_per_gpu);

}  // namespace linksim::topo
