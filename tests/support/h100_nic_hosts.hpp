#pragma once
// Hosts for cluster tests of NVLSTree and CollNet (tests/coll/algorithms/): two H100s with one
// 400 Gb/s InfiniBand NIC each, joined by an NVSwitch, or by PCIe only.

#include <string>

namespace linksim::testing {

// Two H100s, 18 NVLink 4 lanes each to one NVSwitch, each behind its own PCIe 5.0 switch with
// one 400 Gb/s NIC.
inline std::string nvswitch_nic_host() {
  return R"({
  "title": "2x H100 on an NVSwitch, one NIC per GPU",
  "nodes": [
    {"id": "gpu", "kind": "gpu", "count": 2, "model": "H100-SXM5-80GB"},
    {"id": "nvs0", "kind": "nvswitch"},
    {"id": "sw", "kind": "pcie_switch", "count": 2},
    {"id": "cpu0", "kind": "cpu", "vendor": "intel"},
    {"id": "nic", "kind": "nic", "count": 2, "port_bandwidth": "400 Gb/s"}
  ],
  "links": [
    {"for": {"g": "0..1"}, "a": "gpu{g}", "b": "nvs0", "kind": "nvlink", "generation": 4,
     "lanes": 18},
    {"for": {"g": "0..1"}, "a": "gpu{g}", "b": "sw{g}", "kind": "pcie", "generation": 5},
    {"for": {"g": "0..1"}, "a": "nic{g}", "b": "sw{g}", "kind": "pcie", "generation": 5},
    {"for": {"g": "0..1"}, "a": "sw{g}", "b": "cpu0", "kind": "pcie", "generation": 5}
  ]
})";
}

// The same without NVLink: the GPUs meet through PCIe and the CPU.
inline std::string pcie_nic_host() {
  return R"({
  "title": "2x H100 PCIe only, one NIC per GPU",
  "nodes": [
    {"id": "gpu", "kind": "gpu", "count": 2, "model": "H100-SXM5-80GB"},
    {"id": "sw", "kind": "pcie_switch", "count": 2},
    {"id": "cpu0", "kind": "cpu", "vendor": "intel"},
    {"id": "nic", "kind": "nic", "count": 2, "port_bandwidth": "400 Gb/s"}
  ],
  "links": [
    {"for": {"g": "0..1"}, "a": "gpu{g}", "b": "sw{g}", "kind": "pcie", "generation": 5},
    {"for": {"g": "0..1"}, "a": "nic{g}", "b": "sw{g}", "kind": "pcie", "generation": 5},
    {"for": {"g": "0..1"}, "a": "sw{g}", "b": "cpu0", "kind": "pcie", "generation": 5}
  ]
})";
}

}  // namespace linksim::testing
