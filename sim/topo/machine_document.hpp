#pragma once
// A machine file as a typed value (docs/topology-format.md), for the code that writes one: the
// `nvidia-smi topo -m` and NCCL XML importers, `linksim calibrate`'s discovered node and
// `linksim fit`'s calibrated blocks. topo::write_machine_document (machine_writer.hpp) turns it
// into the JSON document, in the one key order every writer shares. Figures are SI here and
// written in the format's human units; an empty string or an unset optional is not written.

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/topo/topology.hpp"

namespace linksim::topo {

// One entry of "gpu_models": a GPU the catalog does not know, described inline.
struct GpuModelEntry {
  std::string name;                                         // the key nodes' "model" names
  double memory_bytes = 0;                                  // written in GiB
  double hbm_bandwidth_Bps = 0;                             // written in GB/s
  std::vector<std::pair<std::string, double>> peak_tflops;  // by precision: {"fp32", 19.5}
  int pcie_generation = 0;
  int pcie_width = 0;
  int sm_count = 0;
  std::string source;
  std::optional<int> nvlink_generation;
  std::optional<int> nvlink_links;
};

// One entry of "nodes".
struct NodeEntry {
  std::string id;
  std::string kind;                          // "gpu", "cpu", "nic", "nvswitch", "pcie_switch"
  std::optional<std::size_t> count;          // a gpu entry standing for gpu0..gpu<count-1>
  std::string vendor;                        // cpu: "intel", "amd", ...
  std::string model;                         // gpu: its model; cpu: what it is
  std::optional<int> socket;                 // cpu
  std::optional<int> numa_node;              // cpu
  std::string cores;                         // cpu: "0-15,32-47" as printed
  std::optional<double> port_bandwidth_Bps;  // nic, written in whole Mb/s as NCCL reports it
  std::optional<CpuIdentity> cpuid;          // cpu, as a dump states it
  std::optional<PciIdentity> pci;            // gpu, nic, pcie_switch, nvswitch: as dumped
  std::optional<NcclDevice> nccl;            // gpu, nic: NCCL's attributes, as dumped
};

// A link's figures where they override the kind's defaults, with where they came from.
struct LinkFigures {
  std::optional<double> bandwidth_Bps;  // written in GB/s, 6 significant digits
  std::optional<double> latency_s;      // written in us, 6 significant digits
  std::optional<Range> bandwidth_range_Bps;
  std::optional<Range> latency_range_s;
  std::string basis;  // "effective" or "theoretical"
  std::string source;
};

// One entry of "links". `loop` is the entry's "for": each variable with its values as written
// ("0..7"); a and b may then name the variables ("gpu{g}").
struct LinkEntry {
  std::vector<std::pair<std::string, std::string>> loop;
  std::string a;
  std::string b;
  std::string kind;  // "pcie", "nvlink", "upi", "xgmi", ...
  std::optional<int> generation;
  std::optional<int> lanes;  // NVLinks in the bundle
  std::optional<int> width;  // PCIe lanes
  std::optional<int> host_bridge;
  LinkFigures figures;
};

struct MachineDocument {
  std::string schema;  // "$schema", e.g. "./schema.json"
  std::string title;
  std::string description;
  std::vector<std::string> sources;
  std::vector<std::string> notes;
  std::vector<GpuModelEntry> gpu_models;
  std::vector<NodeEntry> nodes;
  std::vector<LinkEntry> links;
  std::optional<CollectiveCalibration> collective;  // "collective_calibration"
  std::optional<HostLaunch> host_launch;
};

// Entries with what every one has; the optional fields are set on the result.
inline NodeEntry node_entry(std::string id, std::string kind) {
  NodeEntry n;
  n.id = std::move(id);
  n.kind = std::move(kind);
  return n;
}
inline LinkEntry link_entry(std::string a, std::string b, std::string kind) {
  LinkEntry l;
  l.a = std::move(a);
  l.b = std::move(b);
  l.kind = std::move(kind);
  return l;
}
inline LinkEntry pcie_link_entry(std::string a, std::string b, int generation, int width) {
  LinkEntry l = link_entry(std::move(a), std::move(b), "pcie");
  l.generation = generation;
  l.width = width;
  return l;
}
inline LinkEntry nvlink_link_entry(std::string a, std::string b, int generation, int lanes) {
  LinkEntry l = link_entry(std::move(a), std::move(b), "nvlink");
  l.generation = generation;
  l.lanes = lanes;
  return l;
}

}  // namespace linksim::topo
