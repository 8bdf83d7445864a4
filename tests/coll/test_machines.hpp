#pragma once
// Small machines written by hand for the collective tests: two GPUs each, joined in the one way
// a test needs, so that every figure in an expected value can be worked out on paper.

#include <string>

#include "sim/topo/topology.hpp"

namespace linksim::coll::testing {

// Two A100s joined by 4 NVLink 3 links (100 GB/s per direction) and nothing else.
topo::Topology a100_nvlink_pair();
// Two L40S (Ada, no NVLink) behind one PCIe 4.0 switch on one CPU.
topo::Topology l40s_pcie_pair();
// Two GPUs of `model`, each with `lanes` NVLink `generation` lanes to one NVSwitch.
topo::Topology nvswitch_pair(const std::string& model, int generation, int lanes);
// Two H100-SXM5 joined directly by 18 NVLink 4 lanes, without an NVSwitch.
topo::Topology h100_direct_pair();

}  // namespace linksim::coll::testing
