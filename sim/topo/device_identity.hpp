#pragma once
// How the machine itself names a device, as a dump of it states (NCCL's topology XML): the PCI
// function's address and ids, the CPU's cpuid, and NCCL's own numbering of GPUs and network
// devices. linksim models none of it; it is kept so that a machine imported from a dump exports
// back to the same dump (NCCL matches NCCL_TOPO_FILE entries to devices by bus id, and rates the
// link between sockets by the CPU's vendor, family and model). Every field is optional: text
// fields are "" and numbers unset where the dump does not state them.

#include <optional>
#include <string>

namespace linksim::topo {

// A PCI function as sysfs reports it and NCCL dumps it (<pci busid class vendor device
// subsystem_vendor subsystem_device>), each as the text stated (hex with "0x").
struct PciIdentity {
  std::string bus_id;        // "0000:10:1c.0": domain:bus:device.function, in hex
  std::string device_class;  // "0x030200": class, subclass and programming interface
  std::string vendor_id;     // "0x10de"
  std::string device_id;     // "0x20b0"
  std::string subsystem_vendor_id;
  std::string subsystem_device_id;
};

// The CPU as cpuid names it (NCCL's <cpu arch vendor familyid modelid>). NCCL derives the
// socket link's bandwidth from these: Intel family 6 model 143 (Sapphire Rapids) is not 85.
struct CpuIdentity {
  std::string arch;           // "x86_64", "arm64", "ppc64"
  std::string vendor;         // cpuid's vendor string: "GenuineIntel", "AuthenticAMD"
  std::optional<int> family;  // familyid
  std::optional<int> model;   // modelid
};

// NCCL's attributes of a GPU (<gpu dev rank gdr>) or a network device (<net name dev guid port
// gdr maxconn latency>) beyond what linksim models (a GPU's SM version is its model's; a NIC's
// speed its port bandwidth).
struct NcclDevice {
  std::string name;                 // net: the device name ("mlx5_0") where it is not the node id
  std::optional<int> dev;           // the CUDA device number, or the network device number
  std::optional<int> rank;          // gpu: the rank that dumped it
  std::optional<int> gdr;           // GPUDirect RDMA: 1 supported, 0 not
  std::string guid;                 // net: "0x..." as stated; ports of one NIC share it
  std::optional<int> port;          // net: the port number on its NIC
  std::optional<int> maxconn;       // net: the plugin's connection limit
  std::optional<double> latency_s;  // net: the plugin's stated latency (NCCL's unit: us)
};

// What the machine file and the import accept as such text (topologies/schema.json says the
// same): a bus id "dddd:bb:dd.f" (hex domain of up to 8 digits, as Linux writes wide domains);
// an id, class or GUID "0x" and 1 to 16 hex digits.
bool is_pci_bus_id(const std::string& text);
bool is_hex_id(const std::string& text);
// What an error says was expected where those checks fail, in both readers' words.
inline constexpr const char* kPciBusIdExpected =
    "expected a PCI bus id, domain:bus:device.function in hex (\"0000:10:1c.0\")";
inline constexpr const char* kHexIdExpected = "expected \"0x\" and 1 to 16 hex digits";

}  // namespace linksim::topo
