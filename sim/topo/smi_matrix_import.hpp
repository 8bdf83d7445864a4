#pragma once
// Turning an `nvidia-smi topo -m` matrix into a topology file.

#include <string>
#include <vector>

#include "sim/core/json_view.hpp"
#include "sim/topo/smi_matrix.hpp"

namespace linksim::topo {

struct SmiImport {
  Json document;  // a topology file
  // Every count and kind the import had to assume (socket links, PCIe switches and host
  // bridges, CPU vendor, NIC model and speed, ...), for the user.
  std::vector<std::string> assumed;
};
struct SmiImportOptions {
  std::string gpu_model;  // required: printouts do not name the GPU
  std::string cpu_vendor = "intel";
  std::string title;   // defaults to "<n>x <gpu> (imported from nvidia-smi topo -m)"
  std::string source;  // printout file name, recorded in "sources"
};
// The document loads, and its machine re-prints every class (X, NV#, PIX, PXB, PHB, NODE, SYS)
// and every NIC name of `m`; where no machine linksim can describe would, it throws InputError
// naming `options.source`, the row's line and the first cell that would differ. Affinity
// values a machine file cannot hold (NUMA lists, GPU NUMA IDs, two affinities on one CPU node)
// are listed in `assumed`. Also throws InputError for an unknown GPU model and for a GPU row
// missing or cut short.
SmiImport import_smi(const SmiMatrix& m, const SmiImportOptions& options);

}  // namespace linksim::topo
