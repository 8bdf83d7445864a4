#include "sim/topo/nccl_xml_nic_ids.hpp"

#include "sim/core/ascii_case.hpp"

namespace linksim::topo {

std::optional<KnownNic> find_known_nic(const std::string& vendor, const std::string& device) {
  // Amazon's PCI vendor id 0x1d0f, and the first EFA device id (the Linux efa driver's
  // PCI_DEV_ID_EFA0_VF 0xefa0), which aws-ofi-nccl's p4d and p4de files give for their NICs.
  // EFA's speed is the instance's rather than the device's; 100 Gb/s per device is p4d's and
  // p4de's (400 Gbps on 4 devices, AWS's P4 page). Being an instance figure, the importer lists
  // it as assumed. Later EFA ids are left out: linksim has no file that ties them to a speed.
  if (ascii_lower(vendor) == "0x1d0f" && ascii_lower(device) == "0xefa0") {
    return KnownNic{"AWS EFA (Elastic Fabric Adapter)", 100000,
                    "AWS EC2 instance pages: 100 Gb/s per EFA device 1d0f:efa0 (p4d.24xlarge and "
                    "p4de.24xlarge: 400 Gbps on 4 devices)"};
  }
  return std::nullopt;
}

}  // namespace linksim::topo
