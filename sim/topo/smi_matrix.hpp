#pragma once
// The `nvidia-smi topo -m` view of a machine, and deriving it from a topology. Printing it is
// smi_matrix_format, reading a printout smi_matrix_parse, turning one into a topology file
// smi_matrix_import (its NVLink part smi_matrix_nvlink), comparing two smi_matrix_compare.

#include <string>
#include <vector>

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

// The affinity columns a printout's header names after the devices, in nvidia-smi's order.
inline constexpr const char* kSmiCpuAffinity = "CPU Affinity";
inline constexpr const char* kSmiNumaAffinity = "NUMA Affinity";
inline constexpr const char* kSmiGpuNumaId = "GPU NUMA ID";

struct SmiMatrix {
  std::vector<std::string> columns;  // "GPU0".."GPUn", then NICs
  std::vector<SmiRow> rows;
  std::vector<std::string> nic_names;  // NIC legend: names as printed ("mlx5_0"), may be empty
  // The affinity columns printed, a prefix of {CPU Affinity, NUMA Affinity, GPU NUMA ID}:
  // drivers before about 2022 print no GPU NUMA ID, older ones only CPU Affinity, the oldest
  // none. A derived matrix prints all three.
  std::vector<std::string> affinity_columns{kSmiCpuAffinity, kSmiNumaAffinity, kSmiGpuNumaId};
  int header_line = 0;  // where a printout's header was read; 0 for a derived matrix
  bool has_affinity() const { return !affinity_columns.empty(); }
};

SmiMatrix smi_matrix(const Topology& topo, const Router& router);

}  // namespace linksim::topo
