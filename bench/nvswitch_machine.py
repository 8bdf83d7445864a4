#!/usr/bin/env python3
"""Writes a generated N-GPU NVSwitch machine (benchmark only: topo check / topo show scaling).

Usage: bench/nvswitch_machine.py N > nvswitch-N.json  (N a multiple of 8)
The same shape as bench/machines/nvswitch-{64,128,256}.json: N H100s with 18 NVLink 4 links,
two to each of nine NVSwitches; PCIe 5.0 switches of four GPUs; two Intel sockets joined by UPI.
"""
import json
import sys

n = int(sys.argv[1])
if n < 8 or n % 8:
    sys.exit("N must be a multiple of 8")
switches = n // 4
machine = {
    "$schema": "../../topologies/schema.json",
    "title": f"Generated {n}-GPU NVSwitch machine (benchmark only: topo check / topo show scaling)",
    "description": f"{n} H100-SXM5-80GB, each with 18 NVLink 4 links, two to each of nine "
    "NVSwitches; PCIe 5.0 switches with four GPUs each; two Intel sockets joined by UPI. Not a "
    "real product: a machine large enough to time the all-pairs summaries.",
    "nodes": [
        {"id": "gpu", "kind": "gpu", "count": n, "model": "H100-SXM5-80GB"},
        {"id": "nvs", "kind": "nvswitch", "count": 9, "model": "NVSwitch (3rd gen)"},
        {"id": "sw", "kind": "pcie_switch", "count": switches},
        {"id": "cpu", "kind": "cpu", "count": 2, "vendor": "intel", "socket": "{i}",
         "numa_node": "{i}"},
    ],
    "links": [
        {"for": {"g": f"0..{n - 1}", "s": "0..8"}, "a": "gpu{g}", "b": "nvs{s}",
         "kind": "nvlink", "generation": 4, "lanes": 2},
        {"for": {"g": f"0..{n - 1}"}, "a": "gpu{g}", "b": "sw{g/4}", "kind": "pcie",
         "generation": 5, "width": 16},
        {"for": {"p": f"0..{switches - 1}"}, "a": "sw{p}", "b": f"cpu{{p/{switches // 2}}}",
         "kind": "pcie", "generation": 5, "width": 16},
        {"a": "cpu0", "b": "cpu1", "kind": "upi", "lanes": 2},
    ],
}
json.dump(machine, sys.stdout, indent=2)
sys.stdout.write("\n")
