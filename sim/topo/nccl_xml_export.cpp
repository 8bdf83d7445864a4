// Writing NCCL's topology XML in the layout of NCCL's own dump (src/graph/xml.cc
// ncclTopoDumpXmlRec: two spaces of indent per level, attributes in insertion order, "/>" for
// an element without children). What a node's dump stated (device_identity.hpp: bus ids, PCI
// classes and ids, cpuid, NCCL's device numbers, GUIDs) is written as stated; the rest is
// derived from the machine, as below.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <utility>

#include "sim/topo/nccl_xml.hpp"

namespace linksim::topo {
namespace {

struct Element {
  std::string name;
  std::vector<std::pair<std::string, std::string>> attrs;
  std::vector<Element> subs;
};

void dump(const Element& e, int indent, std::string& out) {
  out += std::string(static_cast<std::size_t>(indent), ' ') + "<" + e.name;
  for (const auto& [k, v] : e.attrs)
    out += fmt::format(" {}=\"{}\"", k, v);
  if (e.subs.empty()) {
    out += "/>\n";
    return;
  }
  out += ">\n";
  for (const auto& s : e.subs)
    dump(s, indent + 2, out);
  out += std::string(static_cast<std::size_t>(indent), ' ') + "</" + e.name + ">\n";
}

// The CPUs of a list such as "0-31,64-95"; empty when the list is empty or unreadable.
std::set<int> cpu_set(const std::string& cores) {
  std::set<int> cpus;
  std::stringstream in(cores);
  for (std::string part; std::getline(in, part, ',');) {
    int lo = 0;
    int hi = 0;
    char dash = 0;
    std::istringstream p(part);
    if (!(p >> lo)) return {};
    hi = lo;
    if (p >> dash && !(dash == '-' && p >> hi)) return {};
    if (lo < 0 || hi < lo || hi > 4095) return {};
    for (int c = lo; c <= hi; ++c)
      cpus.insert(c);
  }
  return cpus;
}

// The 32-bit words a cpumap of `cpus` needs.
int mask_words(const std::set<int>& cpus) {
  return cpus.empty() ? 0 : *cpus.rbegin() / 32 + 1;
}

// `cpus` as sysfs's cpumap writes it (and NCCL copies): `words` 32-bit words in hex (at least
// as many as the CPUs need), most significant first, comma separated. sysfs writes every NUMA
// node's map at the one width of the machine's CPU count, so a node of low CPUs has leading
// zero words. "" for no CPUs.
std::string affinity_mask(const std::set<int>& cpus, int words) {
  if (cpus.empty()) return "";
  words = std::max(words, mask_words(cpus));
  std::string out;
  for (int w = words - 1; w >= 0; --w) {
    std::uint32_t bits = 0;
    for (int b = 0; b < 32; ++b) {
      if (cpus.count(w * 32 + b)) bits |= std::uint32_t{1} << b;
    }
    out += fmt::format("{}{:08x}", out.empty() ? "" : ",", bits);
  }
  return out;
}

// NCCL's link_speed strings by PCIe generation (xml.cc's speeds[]).
std::string pcie_speed(int generation) {
  static const char* speeds[] = {"",
                                 "2.5 GT/s PCIe",
                                 "5.0 GT/s PCIe",
                                 "8.0 GT/s PCIe",
                                 "16.0 GT/s PCIe",
                                 "32.0 GT/s PCIe",
                                 "64.0 GT/s PCIe"};
  return generation >= 1 && generation <= 6 ? speeds[generation] : "";
}

// A stated text, or the derived one where the dump stated none.
std::string stated_or(const std::string& stated, std::string derived) {
  return stated.empty() ? std::move(derived) : stated;
}
std::string stated_or(const std::optional<int>& stated, int derived) {
  return std::to_string(stated.value_or(derived));
}

class Writer {
 public:
  explicit Writer(const Topology& t) : t_(t) {
    for (const Node& n : t_.nodes()) {
      if (n.pci && !n.pci->bus_id.empty()) used_busids_.insert(n.pci->bus_id);
    }
    for (NodeId c : t_.nodes_of(NodeKind::cpu))
      mask_words_ = std::max(mask_words_, mask_words(cpu_set(t_.node(c).cpu->cores)));
  }

  Element system() {
    Element sys{"system", {{"version", "1"}}, {}};
    for (NodeId c : t_.nodes_of(NodeKind::cpu))
      visited_.insert(c);
    for (NodeId c : t_.nodes_of(NodeKind::cpu))
      sys.subs.push_back(cpu(c));
    return sys;
  }

 private:
  // A made-up bus id for a device the machine file gives none, in PCI domain `domain` (the host
  // bridge it enters its CPU by: the import reads distinct domains as distinct host bridges,
  // so nvidia-smi's NODE survives a round trip). Never one a node states.
  std::string next_busid(int domain) {
    for (;;) {
      const int n = ++buses_[domain];
      const std::string id = fmt::format("{:04x}:{:02x}:{:02x}.0", domain, n % 256, n / 256);
      if (used_busids_.insert(id).second) return id;
    }
  }

  // A node's bus id: as stated, else made up in `domain`.
  std::string busid_of(NodeId id, int domain) {
    const Node& n = t_.node(id);
    if (n.pci && !n.pci->bus_id.empty()) return n.pci->bus_id;
    return next_busid(domain);
  }

  Element cpu(NodeId c) {
    const CpuInfo& info = *t_.node(c).cpu;
    const CpuIdentity stated = info.cpuid.value_or(CpuIdentity{});
    Element e{"cpu", {{"numaid", std::to_string(info.numa_node)}}, {}};
    const std::string mask = affinity_mask(cpu_set(info.cores), mask_words_);
    if (!mask.empty()) e.attrs.push_back({"affinity", mask});
    const bool x86 = info.vendor == "intel" || info.vendor == "amd";
    e.attrs.push_back({"arch", stated_or(stated.arch, x86                    ? "x86_64"
                                                      : info.vendor == "ibm" ? "ppc64"
                                                                             : "arm64")});
    std::string vendor = stated.vendor;
    if (vendor.empty() && x86) vendor = info.vendor == "intel" ? "GenuineIntel" : "AuthenticAMD";
    if (!vendor.empty()) e.attrs.push_back({"vendor", vendor});
    if (x86 || stated.family || stated.model) {
      // NCCL requires family and model for Intel (it rates the socket link by them). Where the
      // dump stated none: Skylake-SP (6/85) for UPI, Broadwell (6/79) for QPI; AMD Zen 2 (23/49).
      const bool qpi = std::any_of(t_.links().begin(), t_.links().end(), [&](const Link& l) {
        return l.kind == LinkKind::qpi && (l.a == c || l.b == c);
      });
      const bool intel = info.vendor == "intel";
      e.attrs.push_back({"familyid", stated_or(stated.family, intel ? 6 : 23)});
      e.attrs.push_back({"modelid", stated_or(stated.model, intel ? (qpi ? 79 : 85) : 49)});
    }
    children(c, e, -1);
    return e;
  }

  // Devices below `parent` over PCIe, in link order; `domain` is the PCI domain of made-up bus
  // ids (-1 below a CPU: each link's host bridge).
  void children(NodeId parent, Element& e, int domain) {
    for (const Link& l : t_.links()) {
      if (l.kind != LinkKind::pcie || (l.a != parent && l.b != parent)) continue;
      const NodeId child = l.a == parent ? l.b : l.a;
      if (!visited_.insert(child).second) continue;
      const Node& n = t_.node(child);
      if (n.kind != NodeKind::pcie_switch && n.kind != NodeKind::gpu && n.kind != NodeKind::nic)
        continue;
      if (n.kind == NodeKind::nic && add_port(child, e)) continue;
      e.subs.push_back(pci(child, l, domain < 0 ? l.host_bridge : domain));
    }
  }

  // A NIC whose stated bus id is a sibling's already written is another port of that NIC: its
  // <net> joins that <pci>'s <nic>, as NCCL dumps a dual-port NIC. Whether it did.
  bool add_port(NodeId nic, Element& parent) {
    const Node& n = t_.node(nic);
    if (!n.pci || n.pci->bus_id.empty()) return false;
    for (Element& sibling : parent.subs) {
      if (sibling.name != "pci" || sibling.attrs.empty() ||
          sibling.attrs[0].second != n.pci->bus_id)
        continue;
      for (Element& sub : sibling.subs) {
        if (sub.name != "nic") continue;
        sub.subs.push_back(net(nic));
        return true;
      }
    }
    return false;
  }

  Element pci(NodeId id, const Link& up, int domain) {
    const Node& n = t_.node(id);
    const PciIdentity stated = n.pci.value_or(PciIdentity{});
    const std::string busid = busid_of(id, domain);
    busid_[id] = busid;
    const char* cls = n.kind == NodeKind::pcie_switch ? "0x060400"
                      : n.kind == NodeKind::gpu       ? "0x030200"
                                                      : "0x020700";
    Element e{"pci", {{"busid", busid}, {"class", stated_or(stated.device_class, cls)}}, {}};
    // In NCCL's order (xml.cc ncclTopoGetXmlFromSys), where stated.
    for (const auto& [key, value] :
         {std::pair<const char*, const std::string&>{"vendor", stated.vendor_id},
          {"device", stated.device_id},
          {"subsystem_vendor", stated.subsystem_vendor_id},
          {"subsystem_device", stated.subsystem_device_id}}) {
      if (!value.empty()) e.attrs.push_back({key, value});
    }
    e.attrs.push_back({"link_speed", pcie_speed(up.generation)});
    e.attrs.push_back({"link_width", std::to_string(up.width)});
    if (n.kind == NodeKind::pcie_switch) children(id, e, domain);
    if (n.kind == NodeKind::gpu) {
      const NcclDevice nccl = n.nccl.value_or(NcclDevice{});
      Element gpu{"gpu",
                  {{"dev", stated_or(nccl.dev, n.ordinal)},
                   {"sm", std::to_string(nccl_compute_capability(*n.gpu))},
                   {"rank", stated_or(nccl.rank, n.ordinal)},
                   {"gdr", stated_or(nccl.gdr, 1)}},
                  {}};
      e.subs.push_back(std::move(gpu));
      pending_gpus_.push_back(id);
    }
    if (n.kind == NodeKind::nic) e.subs.push_back(Element{"nic", {}, {net(id)}});
    return e;
  }

  // A NIC's <net>: speed in Mb/s (NCCL's unit), the rest as stated or NCCL's usual values.
  Element net(NodeId id) {
    const Node& n = t_.node(id);
    const NcclDevice nccl = n.nccl.value_or(NcclDevice{});
    const double speed_Mbps = n.nic->port_bandwidth_Bps * 8 / 1e6;
    return Element{"net",
                   {{"name", stated_or(nccl.name, n.id)},
                    {"dev", stated_or(nccl.dev, n.ordinal)},
                    {"speed", fmt::format("{:.0f}", speed_Mbps > 0 ? speed_Mbps : 10000.0)},
                    {"port", stated_or(nccl.port, 1)},
                    {"latency", fmt::format("{:f}", nccl.latency_s.value_or(0) * 1e6)},
                    {"guid", stated_or(nccl.guid, fmt::format("0x{:x}", n.ordinal + 1))},
                    {"maxconn", stated_or(nccl.maxconn, 131072)},
                    {"gdr", stated_or(nccl.gdr, 1)}},
                   {}};
  }

  // The <gpu> elements get their NVLinks after the tree, once every PCI bus id is known (the
  // NVSwitches' bus ids come after them).
 public:
  void collect(Element& sys) {
    std::vector<Element*> stack{&sys};
    std::size_t next = 0;
    while (!stack.empty()) {
      Element* e = stack.back();
      stack.pop_back();
      if (e->name == "gpu") gpu_elements_.push_back({pending_gpus_.at(next++), e});
      for (auto it = e->subs.rbegin(); it != e->subs.rend(); ++it)
        stack.push_back(&*it);
    }
    for (auto& [gpu, element] : gpu_elements_)
      add_nvlinks(gpu, *element);
  }

 private:
  // A peer's class as an NVLink target: a GPU's stated class (0x030000 for a VGA-class GPU),
  // else 0x030200; an NVSwitch chip 0x068000.
  static std::string target_class(const Node& peer) {
    if (peer.kind == NodeKind::nvswitch) return "0x068000";
    if (peer.pci && peer.pci->device_class.rfind("0x03", 0) == 0) return peer.pci->device_class;
    return "0x030200";
  }

  void add_nvlinks(NodeId gpu, Element& e) {
    std::map<std::string, std::pair<int, std::string>> by_target;  // busid -> count, tclass
    std::vector<std::string> order;
    for (const Link& l : t_.links()) {
      if (l.kind != LinkKind::nvlink || (l.a != gpu && l.b != gpu)) continue;
      const NodeId peer = l.a == gpu ? l.b : l.a;
      const Node& p = t_.node(peer);
      if (p.kind != NodeKind::gpu && p.kind != NodeKind::nvswitch) continue;
      if (!busid_.count(peer)) busid_[peer] = busid_of(peer, 0);
      const std::string& target = busid_[peer];
      if (!by_target.count(target)) order.push_back(target);
      auto& entry = by_target[target];
      entry.first += l.lanes;
      entry.second = target_class(p);
    }
    for (const auto& target : order) {
      e.subs.push_back(Element{"nvlink",
                               {{"target", target},
                                {"count", std::to_string(by_target[target].first)},
                                {"tclass", by_target[target].second}},
                               {}});
    }
  }

  const Topology& t_;
  std::set<NodeId> visited_;
  std::map<NodeId, std::string> busid_;
  std::set<std::string> used_busids_;  // stated and made up
  std::vector<NodeId> pending_gpus_;
  std::vector<std::pair<NodeId, Element*>> gpu_elements_;
  std::map<int, int> buses_;  // made-up bus numbers used, by domain
  int mask_words_ = 0;        // the widest CPU's cpumap
};

}  // namespace

std::string to_nccl_xml(const Topology& topo) {
  Writer w(topo);
  Element sys = w.system();
  w.collect(sys);
  std::string out;
  dump(sys, 0, out);
  return out;
}

}  // namespace linksim::topo
