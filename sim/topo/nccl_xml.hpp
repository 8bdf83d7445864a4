#pragma once
// NCCL's topology XML: the file NCCL writes with NCCL_TOPO_DUMP_FILE and reads with
// NCCL_TOPO_FILE (NVIDIA/nccl src/graph/xml.cc, topo.cc; ../shared/reference/nccl-model.md §3).
//
//   <system version="1">
//     <cpu numaid=".." affinity=".." arch="x86_64" vendor="GenuineIntel" familyid modelid>
//       <pci busid=".." class="0x060400" link_speed="16.0 GT/s PCIe" link_width="16">
//         <pci busid=".." class="0x030200" ...><gpu dev sm rank gdr><nvlink target count
//             tclass/></gpu></pci>
//         <pci busid=".." class="0x020700" ...><nic><net name dev speed port latency guid
//             maxconn gdr/></nic></pci>
//
// What the format cannot hold: links between CPU sockets (NCCL derives them from the CPU's
// vendor and model), host bridges within a socket (NCCL has no NODE level), latencies, and
// per-link bandwidth overrides (NCCL derives PCIe and NVLink bandwidth from speed, width,
// count and the GPU's SM version).

#include <string>
#include <vector>

#include "sim/core/json_view.hpp"
#include "sim/topo/topology.hpp"

namespace linksim::topo {

// The XML NCCL would dump for `topo` (a machine: for a cluster, pass its host). Bus ids are
// made up, in tree order ("0000:01:00.0", ...): a machine file has none. Deterministic.
std::string to_nccl_xml(const Topology& topo);

struct NcclXmlImportOptions {
  std::string gpu_model;  // required: the XML names only the SM version ("sm")
  std::string title;      // defaults to "<n>x <gpu> (imported from NCCL topology XML)"
  std::string source;     // file name, for errors and "sources"
};
struct NcclXmlImport {
  Json document;                     // a topology file
  std::vector<std::string> assumed;  // what the XML could not say, for the user
};
// Reads an NCCL topology XML into a topology file. Throws InputError naming `source` and the
// line: malformed XML, a root other than <system>, a missing or bad attribute, an NVLink target
// that is no GPU or NVSwitch.
NcclXmlImport import_nccl_xml(const std::string& text, const NcclXmlImportOptions& options);

}  // namespace linksim::topo
