#pragma once
// Cell-by-cell comparison of two `nvidia-smi topo -m` matrices.

#include <string>
#include <vector>

#include "sim/topo/smi_matrix.hpp"

namespace linksim::topo {

// Cells where two matrices differ, as "GPU0/NIC3: expected PXB, got SYS"; rows and columns
// missing from `reference` (a truncated printout) are skipped, and so are what it leaves
// unknown: a NUMA affinity of N/A, a NIC without a legend name. NIC names are compared as
// "NIC3 name: expected mlx5_3, got nic3".
std::vector<std::string> compare_smi(const SmiMatrix& reference, const SmiMatrix& actual);

}  // namespace linksim::topo
