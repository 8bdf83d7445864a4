// Reading NCCL's topology XML (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE) into a topology file,
// with tinyxml2 for the XML itself.
//
// Two kinds of file. NCCL's own dump names each GPU with a <gpu dev sm> and its NVLinks, each
// NIC with <nic><net name speed>. A PCI-only file, as aws-ofi-nccl ships for p4d, has no <gpu>
// at all: NCCL fuses it with the machine it runs on (xml.cc ncclTopoFillGpu, ncclTopoFillNet
// fill the entries whose bus id matches a detected device), so the file gives only the PCI
// tree and each device's class. There a GPU is a <pci> of class 0x03.... and a NIC one of class
// 0x02.... (NCCL's kvDictPciClass), and what the running machine would add (device numbers,
// NIC speeds, NVLinks) comes from the options, a known PCI id, or an error saying it is missing.
//
// What identifies each device (bus ids, PCI classes and ids, the CPU's cpuid, NCCL's device
// numbers, GUIDs and the like) is kept on its node as stated ("cpuid", "pci", "nccl";
// device_identity.hpp), so the export writes the same file back.
#include <fmt/format.h>
#include <tinyxml2.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

#include "sim/core/error.hpp"
#include "sim/topo/gpu_model.hpp"
#include "sim/topo/gpu_pci_ids.hpp"
#include "sim/topo/machine_writer.hpp"
#include "sim/topo/nccl_xml.hpp"
#include "sim/topo/nccl_xml_nic_ids.hpp"

namespace linksim::topo {
namespace {

using tinyxml2::XMLElement;

std::string at_line(const XMLElement& e) {
  return fmt::format("line {}", e.GetLineNum());
}

std::string attr(const XMLElement& e, const char* name) {
  const char* v = e.Attribute(name);
  return v ? v : "";
}

// A text attribute kept as a device's identity (a CPU's arch and vendor, a network device's
// name): printable ASCII, as the kernel and NCCL write them, so the machine file stays valid
// JSON text. "" when absent.
std::string identity_text_attr(const XMLElement& e, const char* name, const std::string& source) {
  const std::string v = attr(e, name);
  const bool printable = std::all_of(v.begin(), v.end(), [](char c) {
    return static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7f;
  });
  if (!printable || v.size() > 256) {
    throw InputError(source, at_line(e),
                     fmt::format("<{}> {}: expected printable ASCII text of at most 256 "
                                 "characters, as NCCL writes it",
                                 e.Name(), name));
  }
  return v;
}

// An integer attribute, or InputError naming the element's line.
int int_attr(const XMLElement& e, const char* name, const std::string& source,
             std::optional<int> fallback = std::nullopt) {
  const char* v = e.Attribute(name);
  if (!v || !*v) {
    if (fallback) return *fallback;
    throw InputError(source, at_line(e), fmt::format("<{}> has no {} attribute", e.Name(), name));
  }
  static const std::regex number(R"(-?\d{1,9})");
  if (!std::regex_match(v, number)) {
    throw InputError(source, at_line(e),
                     fmt::format("<{}> {}=\"{}\": expected an integer", e.Name(), name, v));
  }
  return std::stoi(v);
}

// "ffffffff,0000ffff" (sysfs cpumap words, most significant first) as "0-15,32-63".
std::string cores_from_mask(const std::string& mask) {
  static const std::regex words(R"([0-9a-fA-F]{1,8}(,[0-9a-fA-F]{1,8})*)");
  if (mask.empty() || mask.size() > 1200 || !std::regex_match(mask, words)) return "";
  std::vector<std::uint32_t> w;
  std::stringstream in(mask);
  for (std::string part; std::getline(in, part, ',');)
    w.push_back(static_cast<std::uint32_t>(std::stoul(part, nullptr, 16)));
  std::vector<std::string> ranges;
  int start = -1;
  const int n = static_cast<int>(w.size()) * 32;
  for (int cpu = 0; cpu <= n; ++cpu) {
    bool set = false;
    if (cpu < n) set = (w[w.size() - 1 - static_cast<std::size_t>(cpu / 32)] >> (cpu % 32)) & 1u;
    if (set && start < 0) start = cpu;
    if (!set && start >= 0) {
      ranges.push_back(start == cpu - 1 ? std::to_string(start)
                                        : fmt::format("{}-{}", start, cpu - 1));
      start = -1;
    }
  }
  return fmt::format("{}", fmt::join(ranges, ","));
}

// PCIe generation from NCCL's link_speed ("16.0 GT/s PCIe", "8 GT/s"); 0 when unknown.
int pcie_generation(const std::string& speed) {
  static const std::map<std::string, int> gt{{"2.5", 1},  {"5", 2},  {"5.0", 2},  {"8", 3},
                                             {"8.0", 3},  {"16", 4}, {"16.0", 4}, {"32", 5},
                                             {"32.0", 5}, {"64", 6}, {"64.0", 6}};
  const auto space = speed.find(' ');
  const auto it = gt.find(speed.substr(0, space));
  return it == gt.end() ? 0 : it->second;
}

// Whether an element named `name` is `e` or below it.
bool has_element(const XMLElement& e, const char* name) {
  if (std::string(e.Name()) == name) return true;
  for (const XMLElement* c = e.FirstChildElement(); c; c = c->NextSiblingElement()) {
    if (has_element(*c, name)) return true;
  }
  return false;
}

// A <pci>'s bus id in lower case ("0000:a0:1c.0"), whose text order is bus order: Linux writes
// every field at a fixed width, in hex.
std::string bus_order(const XMLElement& pci) {
  std::string id = attr(pci, "busid");
  std::transform(id.begin(), id.end(), id.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return id;
}

// "<pci busid=\"..\" class=\"..\">" as the file has it, for messages.
std::string pci_tag(const XMLElement& e) {
  std::string tag = fmt::format("<{} busid=\"{}\"", e.Name(), attr(e, "busid"));
  if (e.Attribute("class")) tag += fmt::format(" class=\"{}\"", attr(e, "class"));
  return tag + ">";
}

// A text attribute that must be "0x" hex where given (a PCI id or class, a GUID), or "".
std::string hex_attr(const XMLElement& e, const char* name, const std::string& source) {
  const std::string v = attr(e, name);
  if (!v.empty() && !is_hex_id(v)) {
    throw InputError(source, at_line(e),
                     fmt::format("<{}> {}=\"{}\": {}", e.Name(), name, v, kHexIdExpected));
  }
  return v;
}

// A <pci>'s identity as stated; unset when it states none of it.
std::optional<PciIdentity> pci_identity(const XMLElement& e, const std::string& source) {
  PciIdentity p;
  p.bus_id = attr(e, "busid");
  if (!p.bus_id.empty() && !is_pci_bus_id(p.bus_id)) {
    throw InputError(source, at_line(e),
                     fmt::format("<{}> busid=\"{}\": {}", e.Name(), p.bus_id, kPciBusIdExpected));
  }
  p.device_class = hex_attr(e, "class", source);
  p.vendor_id = hex_attr(e, "vendor", source);
  p.device_id = hex_attr(e, "device", source);
  p.subsystem_vendor_id = hex_attr(e, "subsystem_vendor", source);
  p.subsystem_device_id = hex_attr(e, "subsystem_device", source);
  if (p.bus_id.empty() && p.device_class.empty() && p.vendor_id.empty() && p.device_id.empty() &&
      p.subsystem_vendor_id.empty() && p.subsystem_device_id.empty()) {
    return std::nullopt;
  }
  return p;
}

// A count or number attribute (0 or more) where stated, unset otherwise.
std::optional<int> stated_int(const XMLElement& e, const char* name, const std::string& source) {
  if (!e.Attribute(name) || !*e.Attribute(name)) return std::nullopt;
  const int n = int_attr(e, name, source);
  if (n < 0) {
    throw InputError(source, at_line(e),
                     fmt::format("<{}> {}=\"{}\": expected 0 or more", e.Name(), name, n));
  }
  return n;
}

constexpr const char* kNoGpuInFile =
    "no GPU in the file: no <gpu> element, and no <pci> of a GPU class (0x03....)";

class Reader {
 public:
  Reader(const NcclXmlImportOptions& options, const GpuModel& model)
      : opt_(options), model_(model) {}

  void system(const XMLElement& root) {
    pci_only_ = !has_element(root, "gpu");
    if (!pci_only_ && !opt_.nvlink.empty()) {
      throw InputError(opt_.source, "",
                       fmt::format("--nvlink {}: the file gives its GPUs' NVLinks itself (<gpu> "
                                   "elements); --nvlink is for a PCI-only file",
                                   opt_.nvlink));
    }
    for (const XMLElement* c = root.FirstChildElement(); c; c = c->NextSiblingElement()) {
      if (std::string(c->Name()) != "cpu") {
        throw InputError(opt_.source, at_line(*c),
                         fmt::format("<{}> under <system>: expected <cpu>", c->Name()));
      }
      cpu(*c);
    }
    unclassed_pci();
    class_gpus();
    class_nics();
    if (gpus_.empty()) {
      throw InputError(opt_.source, at_line(root), kNoGpuInFile);
    }
    nvlinks();
    for (std::size_t i = 0; i < cpus_.size(); ++i) {
      for (std::size_t j = i + 1; j < cpus_.size(); ++j) {
        links_.push_back(link_entry(cpus_[i], cpus_[j], socket_link_));
      }
    }
  }

  MachineDocument document() const {
    MachineDocument doc;
    doc.schema = "./schema.json";
    doc.title = opt_.title.empty() ? fmt::format("{}x {} (imported from NCCL topology XML)",
                                                 gpus_.size(), opt_.gpu_model)
                                   : opt_.title;
    doc.sources = {"NCCL topology XML: " + opt_.source};
    for (const auto& [dev, gpu] : gpus_) {
      doc.nodes.push_back(node_entry(gpu.id, "gpu"));
      doc.nodes.back().model = opt_.gpu_model;
      doc.nodes.back().pci = gpu.pci;
      doc.nodes.back().nccl = gpu.nccl;
    }
    doc.nodes.insert(doc.nodes.end(), other_nodes_.begin(), other_nodes_.end());
    for (const auto& [dev, n] : nics_)
      doc.nodes.push_back(n);
    doc.links = links_;
    return doc;
  }

  std::vector<std::string> assumed;

 private:
  struct Gpu {
    std::string id;
    const XMLElement* element = nullptr;
    std::optional<PciIdentity> pci;
    std::optional<NcclDevice> nccl;
  };

  void cpu(const XMLElement& e) {
    const std::string id = fmt::format("cpu{}", cpus_.size());
    cpus_.push_back(id);
    NodeEntry node = node_entry(id, "cpu");
    node.socket = static_cast<int>(cpus_.size() - 1);
    const std::string vendor = identity_text_attr(e, "vendor", opt_.source);
    const std::string arch = identity_text_attr(e, "arch", opt_.source);
    std::string v = "other";
    if (vendor == "GenuineIntel") v = "intel";
    if (vendor == "AuthenticAMD") v = "amd";
    if (arch == "ppc64") v = "ibm";
    if (arch == "arm64" && vendor.empty()) v = "nvidia";
    node.vendor = v;
    socket_link_ = v == "amd" ? "xgmi" : "upi";
    const int numa = int_attr(e, "numaid", opt_.source, -1);
    if (numa >= 0) node.numa_node = numa;
    node.cores = cores_from_mask(attr(e, "affinity"));
    CpuIdentity cpuid;
    cpuid.arch = arch;
    cpuid.vendor = vendor;
    cpuid.family = stated_int(e, "familyid", opt_.source);
    cpuid.model = stated_int(e, "modelid", opt_.source);
    if (!arch.empty() || !vendor.empty() || cpuid.family || cpuid.model) node.cpuid = cpuid;
    other_nodes_.push_back(node);
    devices(e, id);
  }

  // The <pci> and <nic> elements below `parent` (a cpu or a PCIe switch).
  void devices(const XMLElement& e, const std::string& parent) {
    for (const XMLElement* c = e.FirstChildElement(); c; c = c->NextSiblingElement()) {
      const std::string name = c->Name();
      if (name == "pci") pci(*c, parent);
      if (name == "nic") nics(*c, parent, nullptr);
    }
  }

  // A <pci>'s link_width: its lane count, or 0 for none given. NCCL writes "0" (and "") where
  // sysfs has no max_link_width, as in virtual machines, and reads 0 as x16 (topo.cc
  // ncclTopoAddPci): such a file is NCCL's own, so 0 is taken as unknown, and said so. A
  // negative width or more lanes than PCIe has (x32) is no width at all: refused.
  int link_width(const XMLElement& pci) {
    const int width = int_attr(pci, "link_width", opt_.source, 0);
    if (width < 0 || width > 32) {
      throw InputError(opt_.source, at_line(pci),
                       fmt::format("<{}> link_width=\"{}\": expected a PCIe lane count from 1 to "
                                   "32, or 0 where the width is unknown",
                                   pci.Name(), attr(pci, "link_width")));
    }
    if (width == 0 && !attr(pci, "link_width").empty() && !zero_width_noted_) {
      assumed.push_back(fmt::format(
          "link_width=\"0\" (first at line {}: the width is unknown) read as x16, as NCCL reads it",
          pci.GetLineNum()));
      zero_width_noted_ = true;
    }
    return width;
  }

  LinkEntry pcie_link(const std::string& a, const std::string& b, const XMLElement* pci) {
    int generation = pci ? pcie_generation(attr(*pci, "link_speed")) : 0;
    int width = pci ? link_width(*pci) : 0;
    if (generation == 0 || width == 0) {
      if (!defaulted_pcie_) {
        assumed.push_back(fmt::format(
            "PCIe {}.0 x16 (from the GPU model) where the XML gives no link_speed or link_width",
            model_.pcie_generation));
        defaulted_pcie_ = true;
      }
      if (generation == 0) generation = model_.pcie_generation;
      if (width == 0) width = 16;
    }
    LinkEntry link = pcie_link_entry(a, b, generation, width);
    if (pci) {
      const int bridge = host_bridge(b, *pci);
      if (bridge > 0) link.host_bridge = bridge;
    }
    return link;
  }

  // The host bridge by which a device hanging from CPU `parent` enters it: the order of first
  // appearance of its bus id's PCI domain among that CPU's (a domain is one root complex, so
  // two domains are two host bridges; NCCL's XML has no other sign of them, and devices of one
  // domain are taken to share one, as NCCL takes them). 0 below a switch or without a bus id.
  int host_bridge(const std::string& parent, const XMLElement& pci) {
    if (std::find(cpus_.begin(), cpus_.end(), parent) == cpus_.end()) return 0;
    const std::string busid = attr(pci, "busid");
    if (!is_pci_bus_id(busid)) return 0;
    std::string domain = busid.substr(0, busid.find(':'));
    domain.erase(0, std::min(domain.find_first_not_of('0'), domain.size()));
    std::transform(domain.begin(), domain.end(), domain.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    auto& seen = domains_[parent];
    const auto it = std::find(seen.begin(), seen.end(), domain);
    if (it != seen.end()) return static_cast<int>(it - seen.begin());
    seen.push_back(domain);
    const int bridge = static_cast<int>(seen.size()) - 1;
    if (bridge > 0 && !bridges_noted_) {
      assumed.push_back(fmt::format(
          "{} enters {} by a host bridge of its own: its PCI domain differs from the first "
          "device's (a domain is one root complex); devices of one domain share one",
          pci_tag(pci), parent));
      bridges_noted_ = true;
    }
    return bridge;
  }

  void pci(const XMLElement& e, const std::string& parent) {
    const std::string busid = attr(e, "busid");
    const std::string cls = attr(e, "class");
    const XMLElement* gpu = e.FirstChildElement("gpu");
    const XMLElement* nic = e.FirstChildElement("nic");
    if (gpu) {
      const int dev = int_attr(*gpu, "dev", opt_.source);
      // dev is the GPU's CUDA device number (NCCL's ncclTopoAddGpu), and names its node gpu<dev>.
      if (dev < 0) {
        throw InputError(opt_.source, at_line(*gpu),
                         fmt::format("<gpu> dev=\"{}\": expected a CUDA device number, 0 or more",
                                     attr(*gpu, "dev")));
      }
      Gpu g{fmt::format("gpu{}", dev), gpu, pci_identity(e, opt_.source), gpu_nccl(*gpu, dev)};
      if (!gpus_.emplace(dev, g).second) {
        throw InputError(opt_.source, at_line(*gpu),
                         fmt::format("<gpu dev=\"{}\"> appears twice", dev));
      }
      busids_[busid] = g.id;
      links_.push_back(pcie_link(g.id, parent, &e));
      return;
    }
    if (nic) {
      nics(*nic, parent, &e);
      return;
    }
    if (cls.rfind("0x0604", 0) == 0) {
      const std::string id = fmt::format("pcie_switch{}", switches_++);
      other_nodes_.push_back(node_entry(id, "pcie_switch"));
      other_nodes_.back().pci = pci_identity(e, opt_.source);
      links_.push_back(pcie_link(id, parent, &e));
      devices(e, id);
      return;
    }
    if (cls.empty() && pci_only_) {
      unclassed_.push_back(&e);  // refused once the whole file has been read, with a count
      devices(e, parent);        // of every such element, those below this one too
      return;
    }
    if (cls.rfind("0x03", 0) == 0) {
      if (pci_only_) {
        class_gpus_.push_back({&e, parent});
      } else {
        ++gpus_without_element_;  // NCCL makes a GPU only of a <pci> with a <gpu> in it
      }
      return;
    }
    if (cls.rfind("0x02", 0) == 0 && pci_only_) {
      class_nics_.push_back({&e, parent});
      return;
    }
    ++skipped_;  // NVMe drives, NVSwitches' management functions, ...
  }

  // A PCI-only file's <pci> elements without a class: NCCL reads the class of each from sysfs
  // on the machine it runs on, so the file alone does not say what they are (aws-ofi-nccl's g5
  // and p5 files are all such). Refused, naming the first.
  void unclassed_pci() const {
    if (unclassed_.empty()) return;
    const XMLElement& first = *unclassed_.front();
    const std::string more =
        unclassed_.size() == 1
            ? std::string()
            : fmt::format(" (nor have {} more <pci> elements)", unclassed_.size() - 1);
    throw InputError(
        opt_.source, at_line(first),
        fmt::format("{} has no class{}: the file has no <gpu> elements and places these PCI "
                    "devices without saying which are GPUs (class 0x03....), NICs (0x02....) or "
                    "PCIe switches (0x060400); NCCL reads that from the machine it runs on. Add "
                    "each one's class, as NCCL dumps it, to a copy of the file",
                    pci_tag(first), more));
  }

  // A PCI-only file's GPUs, numbered gpu0, gpu1, ... in bus id order: the file has no <gpu
  // dev>, and bus id order is nvidia-smi's order, and CUDA's for GPUs of one model.
  void class_gpus() {
    if (class_gpus_.empty()) return;
    std::sort(class_gpus_.begin(), class_gpus_.end(), [](const Placed& x, const Placed& y) {
      return bus_order(*x.pci) < bus_order(*y.pci);
    });
    for (const Placed& p : class_gpus_) {
      const int dev = static_cast<int>(gpus_.size());
      Gpu g{fmt::format("gpu{}", dev), nullptr, pci_identity(*p.pci, opt_.source), std::nullopt};
      gpus_.emplace(dev, g);
      links_.push_back(pcie_link(g.id, p.parent, p.pci));
    }
    assumed.push_back(fmt::format(
        "{} GPUs from <pci> class 0x03.... (the file has no <gpu> elements), numbered gpu0 to "
        "gpu{} in bus id order; their model from --gpu",
        class_gpus_.size(), class_gpus_.size() - 1));
  }

  // A PCI-only file's NICs, nic0, nic1, ... in bus id order after any <net> ones. The file
  // gives no speed: it comes from a PCI id linksim knows (and is listed as assumed), or the
  // import stops naming the NIC.
  void class_nics() {
    if (class_nics_.empty()) return;
    std::sort(class_nics_.begin(), class_nics_.end(), [](const Placed& x, const Placed& y) {
      return bus_order(*x.pci) < bus_order(*y.pci);
    });
    std::map<std::string, int> known;  // "vendor:device" -> devices, for the assumption
    std::map<std::string, std::string> known_source;
    for (const Placed& p : class_nics_) {
      const std::string vendor = attr(*p.pci, "vendor");
      const std::string device = attr(*p.pci, "device");
      const auto nic = find_known_nic(vendor, device);
      if (!nic) {
        throw InputError(
            opt_.source, at_line(*p.pci),
            fmt::format("{} is a NIC whose speed the file does not give (NCCL takes it from its "
                        "network plugin), and linksim knows no speed for its PCI id {}:{}. Give "
                        "it as NCCL dumps it: <nic><net name=\"...\" speed=\"<Mb/s>\"/></nic> "
                        "inside the <pci>",
                        pci_tag(*p.pci), vendor.empty() ? "(no vendor)" : vendor,
                        device.empty() ? "(no device)" : device));
      }
      std::string id = fmt::format("nic{}", names_.size());
      for (int n = 0; !names_.insert(id).second; ++n)
        id = fmt::format("nic{}", names_.size() + static_cast<std::size_t>(n));
      NodeEntry node = node_entry(id, "nic");
      node.model = nic->model;
      node.port_bandwidth_Bps = nic->speed_Mbps * 1e6 / 8;
      node.pci = pci_identity(*p.pci, opt_.source);
      const int order = static_cast<int>(nics_.size());
      nics_.emplace(std::make_pair(kClassNicDev + order, order), node);
      links_.push_back(pcie_link(id, p.parent, p.pci));
      const std::string key = vendor + ":" + device;
      ++known[key];
      known_source[key] = fmt::format("{} Gb/s each, {}", nic->speed_Mbps / 1000, nic->source);
    }
    for (const auto& [key, count] : known) {
      assumed.push_back(fmt::format(
          "{} NICs from <pci> class 0x02.... (PCI id {}; the file gives no <nic> speed or name), "
          "named nic<n> in bus id order: {}",
          count, key, known_source[key]));
    }
  }

  void nics(const XMLElement& nic, const std::string& parent, const XMLElement* pci) {
    static const std::regex usable(R"([A-Za-z][A-Za-z0-9_.:-]*)");
    for (const XMLElement* n = nic.FirstChildElement("net"); n; n = n->NextSiblingElement("net")) {
      std::string id = attr(*n, "name");
      if (!std::regex_match(id, usable) || !names_.insert(id).second) {
        id = fmt::format("nic{}", names_.size());
        names_.insert(id);
      }
      const int speed_Mbps = int_attr(*n, "speed", opt_.source, 10000);
      NodeEntry node = node_entry(id, "nic");
      node.port_bandwidth_Bps = speed_Mbps * 1e6 / 8;
      if (pci) node.pci = pci_identity(*pci, opt_.source);
      node.nccl = net_nccl(*n, id);
      // NIC ordinals follow NCCL's net dev numbers, as GPU ordinals follow dev.
      const int dev = int_attr(*n, "dev", opt_.source, static_cast<int>(nics_.size()));
      nics_.emplace(std::make_pair(dev, static_cast<int>(nics_.size())), node);
      links_.push_back(pcie_link(id, parent, pci));
    }
  }

  // One NVLink bundle per GPU pair (listed by both GPUs; the counts must agree) and per GPU and
  // NVSwitch chip (an NVSwitch target bus id: one nvswitch node each).
  void nvlinks() {
    const int generation = model_.nvlink_generation > 0 ? model_.nvlink_generation : 3;
    std::map<std::pair<std::string, std::string>, std::pair<int, int>> pair_counts;  // count,line
    std::map<std::string, std::string> switches;  // busid -> node id
    if (pci_only_) {
      pci_only_nvlinks(generation);
    }
    for (const auto& [dev, g] : gpus_) {
      if (!g.element) continue;  // a PCI-only file's GPU: pci_only_nvlinks
      for (const XMLElement* l = g.element->FirstChildElement("nvlink"); l;
           l = l->NextSiblingElement("nvlink")) {
        const std::string target = attr(*l, "target");
        const std::string tclass = attr(*l, "tclass");
        const int count = int_attr(*l, "count", opt_.source);
        if (count < 1 || count > 64) {
          throw InputError(opt_.source, at_line(*l),
                           fmt::format("nvlink count=\"{}\": expected 1 to 64", count));
        }
        const auto peer = busids_.find(target);
        if (peer != busids_.end()) {
          if (peer->second == g.id) {
            throw InputError(opt_.source, at_line(*l), "an nvlink whose target is its own GPU");
          }
          const std::pair<std::string, std::string> key = std::minmax(g.id, peer->second);
          auto [it, fresh] = pair_counts.emplace(key, std::make_pair(count, l->GetLineNum()));
          if (!fresh && it->second.first != count) {
            throw InputError(
                opt_.source, at_line(*l),
                fmt::format("{} lists {} NVLinks to {}, which lists {} back (line {})", g.id, count,
                            peer->second, it->second.first, it->second.second));
          }
          if (fresh) {
            links_.push_back(nvlink_link_entry(key.first, key.second, generation, count));
          }
          continue;
        }
        if (tclass.rfind("0x03", 0) == 0) {
          ++outside_;  // a GPU the dump does not hold (a job on part of a node): NCCL skips it
          continue;
        }
        if (tclass != "0x068000") {
          throw InputError(opt_.source, at_line(*l),
                           fmt::format("nvlink target \"{}\" (tclass \"{}\"): expected a GPU's bus "
                                       "id or an NVSwitch (tclass 0x068000)",
                                       target, tclass));
        }
        if (!switches.count(target)) {
          switches[target] = fmt::format("nvswitch{}", switches.size());
          other_nodes_.push_back(node_entry(switches[target], "nvswitch"));
          if (is_pci_bus_id(target)) {
            other_nodes_.back().pci = PciIdentity();
            other_nodes_.back().pci->bus_id = target;
          }
        }
        links_.push_back(nvlink_link_entry(g.id, switches[target], generation, count));
      }
    }
    if (!pci_only_) {
      assumed.push_back(fmt::format("NVLink generation {} (from the GPU model)", generation));
    }
    if (gpus_without_element_ > 0) {
      assumed.push_back(fmt::format(
          "{} <pci> of a GPU class without a <gpu> element are left out, as NCCL leaves them out",
          gpus_without_element_));
    }
    if (outside_ > 0) {
      assumed.push_back(fmt::format(
          "{} NVLink entries to GPUs that are not in the file are left out, as NCCL does",
          outside_));
    }
    if (skipped_ > 0) {
      assumed.push_back(
          fmt::format("{} PCI devices that are no GPU, NIC or bridge are left out", skipped_));
    }
    assumed.push_back(
        "CPUs joined all to all by the vendor's socket link at its default figures (the XML "
        "has no socket links)");
    assumed.push_back("link latencies are the per-kind defaults (docs/topology-format.md)");
  }

  // A PCI-only file's NVLinks: it has none, and NCCL reads them from the driver. A GPU model
  // without NVLink needs none; otherwise --nvlink says how they are joined, or the import stops.
  void pci_only_nvlinks(int generation) {
    if (model_.nvlink_generation == 0) {
      if (opt_.nvlink == "nvswitch") {
        throw InputError(
            opt_.source, "",
            fmt::format("--nvlink nvswitch: the GPU model {} has no NVLink", opt_.gpu_model));
      }
      return;
    }
    if (opt_.nvlink.empty()) {
      throw InputError(
          opt_.source, "",
          fmt::format("the file gives its {} GPUs as <pci> entries only (no <gpu> elements), so "
                      "it does not say how the {} NVLinks of each {} are joined (NCCL reads them "
                      "from the driver); say it with --nvlink nvswitch (every GPU's NVLinks to an "
                      "NVSwitch fabric) or --nvlink none",
                      gpus_.size(), model_.nvlink_links, opt_.gpu_model));
    }
    if (opt_.nvlink == "none") {
      assumed.push_back(
          "no NVLink between the GPUs (--nvlink none; the file has no NVLinks and the GPU model "
          "has them)");
      return;
    }
    other_nodes_.push_back(node_entry("nvswitch0", "nvswitch"));
    for (const auto& [dev, g] : gpus_)
      links_.push_back(nvlink_link_entry(g.id, "nvswitch0", generation, model_.nvlink_links));
    assumed.push_back(fmt::format(
        "each GPU's {} NVLink {} links (from the GPU model) to one NVSwitch fabric node, "
        "nvswitch0 (--nvlink nvswitch; the file has no NVLinks, nor says how many NVSwitch "
        "chips there are)",
        model_.nvlink_links, generation));
  }

  // A <gpu>'s NCCL attributes as stated. Its sm is the GPU model's (--gpu): a file that states
  // another is noted, as the export writes the model's.
  NcclDevice gpu_nccl(const XMLElement& gpu, int dev) {
    NcclDevice d;
    d.dev = dev;
    d.rank = stated_int(gpu, "rank", opt_.source);
    d.gdr = stated_int(gpu, "gdr", opt_.source);
    const auto sm = stated_int(gpu, "sm", opt_.source);
    if (sm && *sm != nccl_compute_capability(model_)) {
      if (sm_mismatches_++ == 0) {
        assumed.push_back(fmt::format(
            "<gpu dev=\"{}\"> (line {}) states sm=\"{}\", but {} is sm {}: the GPUs are the "
            "--gpu model, and an export writes its sm",
            dev, gpu.GetLineNum(), *sm, opt_.gpu_model, nccl_compute_capability(model_)));
      }
    }
    return d;
  }

  // A <net>'s NCCL attributes as stated; its name where the node could not take it as its id.
  NcclDevice net_nccl(const XMLElement& net, const std::string& id) {
    NcclDevice d;
    const std::string name = identity_text_attr(net, "name", opt_.source);
    if (name != id) d.name = name;
    d.dev = stated_int(net, "dev", opt_.source);
    d.gdr = stated_int(net, "gdr", opt_.source);
    d.guid = hex_attr(net, "guid", opt_.source);
    d.port = stated_int(net, "port", opt_.source);
    d.maxconn = stated_int(net, "maxconn", opt_.source);
    const std::string latency = attr(net, "latency");
    if (!latency.empty()) {
      // Microseconds, up to the 1 ms a machine file accepts as a latency.
      static const std::regex number(R"(\d{1,4}(\.\d{0,9})?)");
      if (!std::regex_match(latency, number) || std::stod(latency) > 1000) {
        throw InputError(opt_.source, at_line(net),
                         fmt::format("<net> latency=\"{}\": expected microseconds from 0 to "
                                     "1000, as NCCL writes them (\"0.000000\")",
                                     latency));
      }
      d.latency_s = std::stod(latency) * 1e-6;
    }
    return d;
  }

  // A device a PCI-only file gives by class alone, and the node it hangs from.
  struct Placed {
    const XMLElement* pci = nullptr;
    std::string parent;
  };
  // Class-only NICs order after every <net dev>.
  static constexpr int kClassNicDev = 1 << 20;

  const NcclXmlImportOptions& opt_;
  const GpuModel& model_;
  std::map<int, Gpu> gpus_;                    // by dev: gpu<dev> in dev order
  std::map<std::string, std::string> busids_;  // GPU bus id -> node id
  std::vector<std::string> cpus_;
  std::set<std::string> names_;
  std::vector<NodeEntry> other_nodes_;
  std::map<std::pair<int, int>, NodeEntry> nics_;  // by (net dev, order read)
  std::vector<LinkEntry> links_;
  std::string socket_link_ = "upi";
  int switches_ = 0;
  int skipped_ = 0;
  int outside_ = 0;
  int gpus_without_element_ = 0;
  bool pci_only_ = false;  // no <gpu> anywhere: GPUs and NICs by <pci> class
  std::vector<const XMLElement*> unclassed_;
  std::vector<Placed> class_gpus_;
  std::vector<Placed> class_nics_;
  bool defaulted_pcie_ = false;
  bool zero_width_noted_ = false;
  std::map<std::string, std::vector<std::string>> domains_;  // cpu -> PCI domains, as met
  bool bridges_noted_ = false;
  int sm_mismatches_ = 0;
};

}  // namespace

namespace {

// The file's GPUs as <pci> elements, in document order: each holding a <gpu>, and in a PCI-only
// file each of a GPU class (0x03....).
void gpu_pcis(const XMLElement& e, bool pci_only, std::vector<const XMLElement*>& out) {
  for (const XMLElement* c = e.FirstChildElement(); c; c = c->NextSiblingElement()) {
    if (std::string(c->Name()) == "pci" &&
        (c->FirstChildElement("gpu") != nullptr ||
         (pci_only && attr(*c, "class").rfind("0x03", 0) == 0))) {
      out.push_back(c);
    }
    gpu_pcis(*c, pci_only, out);
  }
}

std::string pci_id_text(const XMLElement& pci) {
  auto bare = [](std::string v) { return v.rfind("0x", 0) == 0 ? v.substr(2) : v; };
  return fmt::format("{}:{}", bare(attr(pci, "vendor")), bare(attr(pci, "device")));
}

// The GPUs' model: --gpu, or where it is not given the one model that every GPU's stated PCI id
// names (gpu_pci_ids.hpp), which `assumed` then states. A given --gpu that a GPU's id
// contradicts is kept (the user's word, as for sm) and the first such GPU is noted.
std::string gpu_model_of(const XMLElement& root, const NcclXmlImportOptions& options,
                         std::vector<std::string>& assumed) {
  std::vector<const XMLElement*> gpus;
  gpu_pcis(root, !has_element(root, "gpu"), gpus);
  if (!options.gpu_model.empty()) {
    for (const XMLElement* pci : gpus) {
      const auto id = find_gpu_pci_id(attr(*pci, "vendor"), attr(*pci, "device"));
      if (id && id->model != options.gpu_model) {
        assumed.push_back(fmt::format(
            "<pci busid=\"{}\"> (line {}) states PCI id {}, an {} (pci.ids: \"{}\"), but --gpu "
            "is {}: the GPUs are the --gpu model",
            attr(*pci, "busid"), pci->GetLineNum(), pci_id_text(*pci), id->model, id->pci_ids_name,
            options.gpu_model));
        break;
      }
    }
    return options.gpu_model;
  }
  if (gpus.empty()) {
    throw InputError(options.source, at_line(root), kNoGpuInFile);
  }
  std::optional<GpuPciId> first;
  for (const XMLElement* pci : gpus) {
    const auto id = find_gpu_pci_id(attr(*pci, "vendor"), attr(*pci, "device"));
    if (!id) {
      throw InputError(
          "", "--gpu",
          fmt::format("required for {}: its GPU <pci busid=\"{}\"> (line {}) states {}, which "
                      "names no GPU model linksim knows; give the model with --gpu",
                      options.source, attr(*pci, "busid"), pci->GetLineNum(),
                      attr(*pci, "device").empty() ? std::string("no PCI id")
                                                   : "PCI id " + pci_id_text(*pci)));
    }
    if (first && id->model != first->model) {
      throw InputError("", "--gpu",
                       fmt::format("required for {}: its GPUs are of two models, {} (line {}) "
                                   "and {} (line {}); a machine file holds one GPU model, so give "
                                   "it with --gpu",
                                   options.source, first->model, gpus.front()->GetLineNum(),
                                   id->model, pci->GetLineNum()));
    }
    if (!first) first = id;
  }
  assumed.push_back(
      fmt::format("the GPUs' model {} (no --gpu) from the PCI id {} every GPU "
                  "states (pci.ids: \"{}\")",
                  first->model, pci_id_text(*gpus.front()), first->pci_ids_name));
  return first->model;
}

}  // namespace

NcclXmlImport import_nccl_xml(const std::string& text, const NcclXmlImportOptions& given) {
  if (!given.gpu_model.empty() && !find_gpu_model(given.gpu_model)) {
    throw InputError(given.source, "",
                     fmt::format("unknown GPU model \"{}\"; known models: {}", given.gpu_model,
                                 fmt::join(gpu_model_names(), ", ")));
  }
  NcclXmlImportOptions options = given;
  if (!options.nvlink.empty() && options.nvlink != "nvswitch" && options.nvlink != "none") {
    throw InputError("", "--nvlink",
                     fmt::format("\"{}\": expected nvswitch or none", options.nvlink));
  }
  tinyxml2::XMLDocument xml;
  if (xml.Parse(text.data(), text.size()) != tinyxml2::XML_SUCCESS) {
    throw InputError(options.source, fmt::format("line {}", xml.ErrorLineNum()),
                     fmt::format("malformed XML: {}", xml.ErrorName()));
  }
  const XMLElement* root = xml.RootElement();
  if (!root || std::string(root->Name()) != "system") {
    throw InputError(options.source, root ? at_line(*root) : "",
                     fmt::format("root element <{}>: expected NCCL's <system version=\"1\">",
                                 root ? root->Name() : ""));
  }
  std::vector<std::string> assumed;
  options.gpu_model = gpu_model_of(*root, options, assumed);
  const GpuModel model = *find_gpu_model(options.gpu_model);  // the Reader holds a reference
  Reader reader(options, model);
  reader.system(*root);
  assumed.insert(assumed.end(), reader.assumed.begin(), reader.assumed.end());
  return {write_machine_document(reader.document()), assumed};
}

}  // namespace linksim::topo
