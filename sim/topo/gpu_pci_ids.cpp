#include "sim/topo/gpu_pci_ids.hpp"

#include "sim/core/ascii_case.hpp"

namespace linksim::topo {

// Every id below as pci.ids version 2026.08.22 lists it (github.com/pciutils/pciids, commit
// c1c12547d626ebf05fd0223144ad87fab5e95d06): vendor 10de NVIDIA Corporation, 1002 AMD.
// Data table: one row per id, as pci.ids lists it; a model with two ids has two rows.
const std::vector<GpuPciId>& gpu_pci_ids() {
  static const std::vector<GpuPciId> table = {
      {"P100-SXM2-16GB", "0x10de", "0x15f9", "GP100GL [Tesla P100 SXM2 16GB]"},
      {"V100-SXM2-16GB", "0x10de", "0x1db1", "GV100GL [Tesla V100 SXM2 16GB]"},
      {"V100-SXM2-16GB", "0x10de", "0x1df5", "GV100GL [Tesla V100 SXM2 16GB]"},
      {"V100-SXM2-32GB", "0x10de", "0x1db5", "GV100GL [Tesla V100 SXM2 32GB]"},
      {"T4", "0x10de", "0x1eb8", "TU104GL [Tesla T4]"},
      {"RTX-2080-Ti", "0x10de", "0x1e04", "TU102 [GeForce RTX 2080 Ti]"},
      {"RTX-2080-Ti", "0x10de", "0x1e07", "TU102 [GeForce RTX 2080 Ti Rev. A]"},
      {"A100-SXM4-40GB", "0x10de", "0x20b0", "GA100 [A100 SXM4 40GB]"},
      {"A100-SXM4-80GB", "0x10de", "0x20b2", "GA100 [A100 SXM4 80GB]"},
      {"A100-PCIE-80GB", "0x10de", "0x20b5", "GA100 [A100 PCIe 80GB]"},
      {"A10", "0x10de", "0x2236", "GA102GL [A10]"},
      {"A10G", "0x10de", "0x2237", "GA102GL [A10G]"},
      {"A40", "0x10de", "0x2235", "GA102GL [A40]"},
      {"RTX-3090", "0x10de", "0x2204", "GA102 [GeForce RTX 3090]"},
      {"RTX-4090", "0x10de", "0x2684", "AD102 [GeForce RTX 4090]"},
      {"RTX-4070-Ti-SUPER", "0x10de", "0x2705", "AD103 [GeForce RTX 4070 Ti SUPER]"},
      {"RTX-4070-Ti-SUPER", "0x10de", "0x2689", "AD102 [GeForce RTX 4070 Ti SUPER]"},
      {"RTX-5090", "0x10de", "0x2b85", "GB202 [GeForce RTX 5090]"},
      {"L40S", "0x10de", "0x26b9", "AD102GL [L40S]"},
      {"L4", "0x10de", "0x27b8", "AD104GL [L4]"},
      {"H100-SXM5-80GB", "0x10de", "0x2330", "GH100 [H100 SXM5 80GB]"},
      {"H200-SXM-141GB", "0x10de", "0x2335", "GH100 [H200 SXM 141GB]"},
      // "H800" alone: the PCIe card is 0x2322 ("H800 PCIe"), so this is the SXM5 part.
      {"H800-SXM5-80GB", "0x10de", "0x2324", "GH100 [H800]"},
      {"H20", "0x10de", "0x2329", "GH100 [H20]"},
      {"MI300X", "0x1002", "0x74a1", "Aqua Vanjaram [Instinct MI300X]"},
  };
  return table;
}

std::optional<GpuPciId> find_gpu_pci_id(const std::string& vendor, const std::string& device) {
  const std::string v = ascii_lower(vendor);
  const std::string d = ascii_lower(device);
  for (const GpuPciId& id : gpu_pci_ids()) {
    if (id.vendor == v && id.device == d) return id;
  }
  return std::nullopt;
}

}  // namespace linksim::topo
