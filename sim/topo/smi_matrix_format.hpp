#pragma once
// Printing an `nvidia-smi topo -m` matrix in nvidia-smi's own layout.

#include <string>

#include "sim/topo/smi_matrix.hpp"

namespace linksim::topo {

// nvidia-smi's layout: header, rows, legend (and NIC legend when there are NICs).
std::string format_smi_matrix(const SmiMatrix& m);

}  // namespace linksim::topo
