#pragma once
// Reading a real `nvidia-smi topo -m` printout back into an SmiMatrix.

#include <string>

#include "sim/topo/smi_matrix.hpp"

namespace linksim::topo {

// Reads a printout; terminal escape sequences (the underlined header of recent drivers) are
// ignored, the old legend's SOC reads as SYS, NIC columns named mlx5_N read as NICs, and the
// affinity columns are those the header names. NUMA Affinity may be a number, a list or
// ranges ("0-1", "0,3-9,11-17") or N/A, as nvidia-smi prints it.
// Throws InputError naming `source` and the line on anything it cannot read, and on a matrix
// no machine prints: GPU columns other than GPU0..GPUn-1 in order, a row that is not a column
// or appears twice, a diagonal other than X (or X off it), NV0 or an NV# above kMaxSmiNvlinks,
// a cell that differs from its mirror, a CPU Affinity range that runs backwards or names
// a CPU from 8192 up (Linux's largest NR_CPUS), or a NUMA list that runs backwards or names a
// node from 1024 up.
inline constexpr int kMaxSmiNvlinks = 64;
SmiMatrix parse_smi_printout(const std::string& text, const std::string& source);

}  // namespace linksim::topo
