#pragma once
// The `nvidia-smi topo -m` view of a machine: derive it from a topology, print it in
// nvidia-smi's layout, read a real printout back, and turn a printout into a topology file.

#include <string>
#include <vector>

#include "sim/core/json_view.hpp"
#include "sim/topo/routing.hpp"
#include "sim/topo/topology.hpp"

namespace linksim::topo {

struct SmiRow {
  std::string label;               // "GPU0", "NIC3"
  std::vector<std::string> cells;  // one per column: "X", "NV12", "PIX", "SYS", ...
  std::string cpu_affinity;        // "" when not printed (NIC rows)
  std::string numa_affinity;
  std::string gpu_numa_id;
  int line = 0;  // line of the printout it came from (0 when derived from a topology)
};

struct SmiMatrix {
  std::vector<std::string> columns;  // "GPU0".."GPUn", then NICs
  std::vector<SmiRow> rows;
  std::vector<std::string> nic_names;  // NIC legend: names as printed ("mlx5_0"), may be empty
  bool has_affinity = true;
  int header_line = 0;  // where a printout's header was read; 0 for a derived matrix
};

SmiMatrix smi_matrix(const Topology& topo, const Router& router);
// nvidia-smi's layout: header, rows, legend (and NIC legend when there are NICs).
std::string format_smi_matrix(const SmiMatrix& m);

// Reads a printout; the old legend's SOC reads as SYS, NIC columns named mlx5_N read as NICs.
// Throws InputError naming `source` and the line on anything it cannot read, and on a matrix
// no machine prints: GPU columns other than GPU0..GPUn-1 in order, a row that is not a column
// or appears twice, a diagonal other than X (or X off it), NV0 or an NV# above kMaxSmiNvlinks,
// or a cell that differs from its mirror.
inline constexpr int kMaxSmiNvlinks = 64;
SmiMatrix parse_smi_printout(const std::string& text, const std::string& source);

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

// The NVLink part of a printout as topology-file nodes and links: one NVSwitch plane when every
// GPU pair shows the same NV# and that many links to every other GPU exceed the GPU's
// `nvlink_links_per_gpu`; otherwise one bundle of NV# links per NV# pair. GPUs are named
// "gpu<i>" after their column ("GPU<i>"). `assumed` says what the printout could not.
struct NvlinkFabric {
  Json nodes = Json::array();
  Json links = Json::array();
  std::vector<std::string> assumed;
};
NvlinkFabric nvlink_fabric_from_smi(const SmiMatrix& m, int nvlink_generation,
                                    int nvlink_links_per_gpu);

// Cells where two matrices differ, as "GPU0/NIC3: expected PXB, got SYS"; rows and columns
// missing from `reference` (a truncated printout) are skipped.
std::vector<std::string> compare_smi(const SmiMatrix& reference, const SmiMatrix& actual);

}  // namespace linksim::topo
