#pragma once
// A machine or cluster as linksim reads it: its devices, its links and the views `linksim topo`
// prints.
//
//   const linksim::Machine m =
//       linksim::load_machine({.name_or_path = "aws-p4d.24xlarge", .nodes = 2});
//   for (const auto& link : m.links) use(link.a, link.b, link.bandwidth_Bps);
//
// Part of the installed C++ package (docs/cpp-api.md): standard headers only. Throws
// linksim::InputError for bad input, naming the file and location (or the option).

#include <string>
#include <vector>

namespace linksim {

struct LoadMachineOptions {
  // A machine or cluster file, or a shipped name ("dgx-a100", "p5"). Required.
  std::string name_or_path;
  // Scale it to this many nodes joined by its NICs' fabric. Default 0: as the file says.
  int nodes = 0;
};

// A GPU, CPU socket, PCIe switch, NVSwitch, NIC or network switch.
struct MachineDevice {
  std::string id;    // unique in the machine: "gpu3", "host1/gpu3"
  std::string kind;  // "gpu", "cpu", "pcie_switch", "nvswitch", "nic", "net_switch"
  int ordinal = 0;   // index among devices of the same kind, in file order
  std::string model;
  int host = 0;  // in a cluster: its host, 0..hosts-1; -1 for the fabric's own switches
  // GPUs only (0 or "" elsewhere):
  double memory_bytes = 0;
  double hbm_bandwidth_Bps = 0;
  std::string architecture;  // "ampere", "hopper", ...
  int sm_count = 0;
};

// A link, full duplex: `bandwidth_Bps` each way.
struct MachineLink {
  std::string a;  // device ids
  std::string b;
  std::string kind;   // "nvlink", "pcie", "upi", "xgmi", "infiniband", "ethernet", ...
  std::string label;  // as nvidia-smi or a spec names it: "NV12", "PCIe Gen4 x16"
  double bandwidth_Bps = 0;
  double latency_s = 0;
};

struct Machine {
  std::string name;  // file stem, e.g. "dgx-a100"
  std::string title;
  std::string description;
  std::string file;  // where it was read from
  int hosts = 1;
  bool is_cluster = false;
  std::vector<MachineDevice> devices;
  std::vector<MachineLink> links;
  // `linksim topo show`: nvidia-smi topo -m's matrix of one host, then linksim's summary.
  std::string smi_view;
  // `linksim topo check`: what linksim makes of the machine and whether it holds together.
  std::string check;
};

Machine load_machine(const LoadMachineOptions& options);

// `linksim topo list`: the shipped machines, a header then one line each.
std::string shipped_machines();

}  // namespace linksim
