#pragma once
// A small host for cluster tests, with round figures: two A100s joined by one NVLink bundle of
// 100 GB/s, each behind its own PCIe 4.0 x16 switch with one 100 Gb/s InfiniBand NIC, both
// switches on one Intel CPU.

#include <string>

namespace linksim::testing {

inline std::string two_gpu_host_json() {
  return R"({
  "title": "2x A100, one NIC per GPU",
  "nodes": [
    {"id": "gpu", "kind": "gpu", "count": 2, "model": "A100-SXM4-80GB"},
    {"id": "sw", "kind": "pcie_switch", "count": 2},
    {"id": "cpu0", "kind": "cpu", "vendor": "intel"},
    {"id": "nic", "kind": "nic", "count": 2, "port_bandwidth": "100 Gb/s"},
    {"id": "mgmt", "kind": "nic", "port_bandwidth": "10 Gb/s", "role": "storage"}
  ],
  "links": [
    {"a": "gpu0", "b": "gpu1", "kind": "nvlink", "generation": 3, "lanes": 4,
     "bandwidth": "100 GB/s", "basis": "effective"},
    {"for": {"g": "0..1"}, "a": "gpu{g}", "b": "sw{g}", "kind": "pcie", "generation": 4},
    {"for": {"g": "0..1"}, "a": "nic{g}", "b": "sw{g}", "kind": "pcie", "generation": 4},
    {"for": {"g": "0..1"}, "a": "sw{g}", "b": "cpu0", "kind": "pcie", "generation": 4},
    {"a": "mgmt", "b": "cpu0", "kind": "pcie", "generation": 3, "width": 4}
  ]
})";
}

// A cluster file of `nodes` copies of the host at `host_file`, with `fabric` (a JSON object).
inline std::string cluster_json(const std::string& host_file, int nodes,
                                const std::string& fabric) {
  return R"({"title": "test cluster", "cluster": {"host": ")" + host_file + R"(", "nodes": )" +
         std::to_string(nodes) + R"(, "fabric": )" + fabric + "}}";
}

}  // namespace linksim::testing
