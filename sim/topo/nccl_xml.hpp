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
  // The GPUs' model. Empty: the one model every GPU's stated PCI id names (gpu_pci_ids.hpp),
  // else refused at "--gpu" (NCCL's <gpu> names only the SM version, "sm").
  std::string gpu_model;
  std::string title;   // defaults to "<n>x <gpu> (imported from NCCL topology XML)"
  std::string source;  // file name, for errors and "sources"
  // How a PCI-only file's GPUs (no <gpu> elements, so no NVLinks given) are joined by NVLink,
  // when the GPU model has NVLink: "nvswitch" (each GPU's links to one NVSwitch fabric node) or
  // "none". Empty: such a file is refused, saying so. Refused with a file that has <gpu>.
  std::string nvlink;
};
struct NcclXmlImport {
  Json document;                     // a topology file
  std::vector<std::string> assumed;  // what the XML could not say, for the user
};
// Reads an NCCL topology XML into a topology file: NCCL's own dump, or a PCI-only file (no <gpu>
// elements, as aws-ofi-nccl ships for p4d), whose GPUs and NICs are <pci> elements of class
// 0x03.... and 0x02.... (nccl_xml_import.cpp says what is taken from where). Throws InputError
// naming `source` and the line: malformed XML, a root other than <system>, a missing or bad
// attribute, an NVLink target that is no GPU or NVSwitch; for a PCI-only file also a <pci>
// without a class, a NIC whose speed neither the file nor its PCI id gives, and NVLink GPUs
// without `nvlink`.
NcclXmlImport import_nccl_xml(const std::string& text, const NcclXmlImportOptions& options);

}  // namespace linksim::topo
