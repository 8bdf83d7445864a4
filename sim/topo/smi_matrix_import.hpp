#pragma once
// Turning an `nvidia-smi topo -m` matrix into a topology file.

#include <string>
#include <vector>

#include "sim/core/json_view.hpp"
#include "sim/topo/smi_matrix.hpp"

namespace linksim::topo {

struct SmiImport {
  Json document;                     // a topology file
  std::vector<std::string> assumed;  // defaults the import had to assume, for the user
};
struct SmiImportOptions {
  std::string gpu_model;  // required: printouts do not name the GPU
  std::string cpu_vendor = "intel";
  std::string title;   // defaults to "<n>x <gpu> (imported from nvidia-smi topo -m)"
  std::string source;  // printout file name, recorded in "sources"
};
SmiImport import_smi(const SmiMatrix& m, const SmiImportOptions& options);

}  // namespace linksim::topo
