#pragma once
// The NUMA domains (the imported machine's cpu nodes) an `nvidia-smi topo -m` printout shows.

#include <string>
#include <vector>

#include "sim/topo/smi_matrix_cells.hpp"

namespace linksim::topo {

// One cpu node of the imported machine.
struct SmiDomain {
  std::string numa;   // its NUMA node number; "" when the printout shows none
  std::string cores;  // CPU affinity as printed; "" when not printed
  bool has_gpus = false;
};

struct SmiDomains {
  std::vector<SmiDomain> list;       // in cpu node order: numbered first, by number; then others
  std::vector<std::size_t> of;       // per column: index into `list`
  std::vector<std::string> assumed;  // what the grouping had to assume, for the user
};

// Devices share a domain where the printout's classes say they share a NUMA node: any PCIe
// class but SYS (PIX, PXB, PHB, NODE) between two devices, GPUs or NICs. NV# hides the PCIe
// class between two GPUs, so there the GPUs' affinities decide: the same NUMA Affinity (or,
// where that is N/A or not printed, the same CPU Affinity, or neither known) joins them, unless
// the printout shows SYS between the two GPUs' domains (their NICs), which one domain could not
// re-print.
// A domain's NUMA number is its first GPU's: a single number as printed, or the first of a
// list ("0,3-9,11-17" gives 0, since a cpu node has one); the assumptions say where that or a
// shared domain makes a GPU's NUMA Affinity re-print otherwise. NICs SYS to every GPU form
// domains without GPUs and without a NUMA number.
SmiDomains smi_numa_domains(const SmiCells& cells);

}  // namespace linksim::topo
