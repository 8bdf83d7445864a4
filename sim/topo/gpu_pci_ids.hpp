#pragma once
// The PCI ids of the catalog's GPU models (gpu_catalog.cpp), from the PCI ID repository's
// pci.ids, so that a file which states its GPUs' ids (NCCL's topology XML) says which model
// they are. Models without an unambiguous entry (GH200-96GB: pci.ids names 120 GB and 144 GB
// parts only) have none, and an id the table lacks identifies nothing.

#include <optional>
#include <string>
#include <vector>

namespace linksim::topo {

struct GpuPciId {
  std::string model;         // the catalog's name, e.g. "A100-SXM4-40GB"
  std::string vendor;        // "0x10de", as NCCL's XML writes it
  std::string device;        // "0x20b0"
  std::string pci_ids_name;  // pci.ids' own words, e.g. "GA100 [A100 SXM4 40GB]"
};

const std::vector<GpuPciId>& gpu_pci_ids();

// The entry of a GPU's `vendor` and `device` ("0x10de", "0x20B0": any case); nullopt when the
// table has none.
std::optional<GpuPciId> find_gpu_pci_id(const std::string& vendor, const std::string& device);

}  // namespace linksim::topo
