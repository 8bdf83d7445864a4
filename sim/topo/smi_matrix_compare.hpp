#pragma once
// Cell-by-cell comparison of two `nvidia-smi topo -m` matrices.

#include <string>
#include <vector>

#include "sim/topo/smi_matrix.hpp"

namespace linksim::topo {

// One place where `actual` prints something other than `reference`.
struct SmiDifference {
  // What differs: a device cell (X, NV#, PIX, ... and missing rows or columns), a NIC's legend
  // name, or an affinity column (CPU Affinity, NUMA Affinity, GPU NUMA ID).
  enum class Kind { cell, nic_name, affinity };
  Kind kind = Kind::cell;
  std::string text;  // "GPU0/NIC3: expected PXB, got SYS"
  int line = 0;      // the reference row's line, else its header's (0 for a derived matrix)
};

// Where two matrices differ, reference rows first in their order: cells as "GPU0/NIC3: expected
// PXB, got SYS", affinities as "GPU0 NUMA Affinity: expected 0,3-9, got 0", NIC names as "NIC3
// name: expected mlx5_3, got nic3". Rows and columns missing from `reference` (a truncated
// printout) are skipped, and so is what it leaves unknown: an affinity of N/A or a truncated
// one, a NIC without a legend name.
std::vector<SmiDifference> smi_differences(const SmiMatrix& reference, const SmiMatrix& actual);
// The same, as text only.
std::vector<std::string> compare_smi(const SmiMatrix& reference, const SmiMatrix& actual);

}  // namespace linksim::topo
