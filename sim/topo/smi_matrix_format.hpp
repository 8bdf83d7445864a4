#pragma once
// Printing an `nvidia-smi topo -m` matrix in nvidia-smi's own layout.

#include <string>

#include "sim/topo/smi_matrix.hpp"

namespace linksim::topo {

// nvidia-smi's layout byte for byte: the tab-separated header and rows (with the affinity
// columns `m` names), the legend, and the NIC legend and its closing empty line when there are
// NICs (so `cut -f`, pandas and nvidia-smi parsers read it as they read the real printout).
std::string format_smi_matrix(const SmiMatrix& m);
// The same matrix for programs: JSON {"columns", "rows": [{"device", "cells", "cpu_affinity",
// "numa_affinity", "gpu_numa_id"}], "nic_legend": {"NIC0": name}}, and CSV with one header
// line ("device", the columns, then the affinity columns) and one line per row.
std::string smi_matrix_json(const SmiMatrix& m);
std::string smi_matrix_csv(const SmiMatrix& m);

}  // namespace linksim::topo
