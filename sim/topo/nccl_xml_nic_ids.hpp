#pragma once
// NICs the NCCL XML importer knows by PCI id alone. A PCI-only topology file (as aws-ofi-nccl
// ships for p4d) lists a NIC as a bare <pci class="0x020000" vendor device> with no <nic><net
// speed>: NCCL takes the speed from its network plugin at run time. Where a device's speed is
// published per device, the importer takes it from here (and lists it as assumed); for any
// other NIC it asks for the speed instead of guessing.

#include <optional>
#include <string>

namespace linksim::topo {

struct KnownNic {
  std::string model;   // for the machine file's NIC node
  int speed_Mbps = 0;  // per device, NCCL's unit for <net speed>
  std::string source;  // where the speed is published, for the assumptions list
};

// The NIC with PCI vendor and device ids `vendor` and `device` as NCCL writes them ("0x1d0f",
// "0xefa0"; case-insensitive), or nullopt when linksim does not know its speed.
std::optional<KnownNic> find_known_nic(const std::string& vendor, const std::string& device);

}  // namespace linksim::topo
