// Writing NCCL's topology XML in the layout of NCCL's own dump (src/graph/xml.cc
// ncclTopoDumpXmlRec: two spaces of indent per level, attributes in insertion order, "/>" for
// an element without children).
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

// A CPU list such as "0-31,64-95" as sysfs's cpumap writes it (and NCCL copies): 32-bit words
// in hex, most significant first, comma separated. "" when the list is empty or unreadable.
std::string affinity_mask(const std::string& cores) {
  std::set<int> cpus;
  std::stringstream in(cores);
  for (std::string part; std::getline(in, part, ',');) {
    int lo = 0;
    int hi = 0;
    char dash = 0;
    std::istringstream p(part);
    if (!(p >> lo)) return "";
    hi = lo;
    if (p >> dash && !(dash == '-' && p >> hi)) return "";
    if (lo < 0 || hi < lo || hi > 4095) return "";
    for (int c = lo; c <= hi; ++c)
      cpus.insert(c);
  }
  if (cpus.empty()) return "";
  const int words = *cpus.rbegin() / 32 + 1;
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

class Writer {
 public:
  explicit Writer(const Topology& t) : t_(t) {}

  Element system() {
    Element sys{"system", {{"version", "1"}}, {}};
    for (NodeId c : t_.nodes_of(NodeKind::cpu))
      visited_.insert(c);
    for (NodeId c : t_.nodes_of(NodeKind::cpu))
      sys.subs.push_back(cpu(c));
    return sys;
  }

 private:
  std::string next_busid() {
    ++buses_;
    return fmt::format("{:04x}:{:02x}:00.0", buses_ / 256, buses_ % 256);
  }

  Element cpu(NodeId c) {
    const CpuInfo& info = *t_.node(c).cpu;
    Element e{"cpu", {{"numaid", std::to_string(info.numa_node)}}, {}};
    const std::string mask = affinity_mask(info.cores);
    if (!mask.empty()) e.attrs.push_back({"affinity", mask});
    if (info.vendor == "intel" || info.vendor == "amd") {
      e.attrs.push_back({"arch", "x86_64"});
      e.attrs.push_back({"vendor", info.vendor == "intel" ? "GenuineIntel" : "AuthenticAMD"});
      // NCCL requires family and model for Intel (it rates the socket link by them): Skylake-SP
      // (6/85) for UPI, Broadwell (6/79) for QPI. AMD: Zen 2 (23/49).
      const bool qpi = std::any_of(t_.links().begin(), t_.links().end(), [&](const Link& l) {
        return l.kind == LinkKind::qpi && (l.a == c || l.b == c);
      });
      e.attrs.push_back({"familyid", info.vendor == "intel" ? "6" : "23"});
      e.attrs.push_back({"modelid", info.vendor == "intel" ? (qpi ? "79" : "85") : "49"});
    } else {
      e.attrs.push_back({"arch", info.vendor == "ibm" ? "ppc64" : "arm64"});
    }
    children(c, e);
    return e;
  }

  // Devices below `parent` over PCIe, in link order.
  void children(NodeId parent, Element& e) {
    for (const Link& l : t_.links()) {
      if (l.kind != LinkKind::pcie || (l.a != parent && l.b != parent)) continue;
      const NodeId child = l.a == parent ? l.b : l.a;
      if (!visited_.insert(child).second) continue;
      const Node& n = t_.node(child);
      if (n.kind != NodeKind::pcie_switch && n.kind != NodeKind::gpu && n.kind != NodeKind::nic)
        continue;
      e.subs.push_back(pci(child, l));
    }
  }

  Element pci(NodeId id, const Link& up) {
    const Node& n = t_.node(id);
    const std::string busid = next_busid();
    busid_[id] = busid;
    const char* cls = n.kind == NodeKind::pcie_switch ? "0x060400"
                      : n.kind == NodeKind::gpu       ? "0x030200"
                                                      : "0x020700";
    Element e{"pci",
              {{"busid", busid},
               {"class", cls},
               {"link_speed", pcie_speed(up.generation)},
               {"link_width", std::to_string(up.width)}},
              {}};
    if (n.kind == NodeKind::pcie_switch) children(id, e);
    if (n.kind == NodeKind::gpu) {
      Element gpu{"gpu",
                  {{"dev", std::to_string(n.ordinal)},
                   {"sm", std::to_string(nccl_compute_capability(*n.gpu))},
                   {"rank", std::to_string(n.ordinal)},
                   {"gdr", "1"}},
                  {}};
      e.subs.push_back(std::move(gpu));
      pending_gpus_.push_back(id);
    }
    if (n.kind == NodeKind::nic) {
      const double speed_Mbps = n.nic->port_bandwidth_Bps * 8 / 1e6;
      Element net{"net",
                  {{"name", n.id},
                   {"dev", std::to_string(n.ordinal)},
                   {"speed", fmt::format("{:.0f}", speed_Mbps > 0 ? speed_Mbps : 10000.0)},
                   {"port", "1"},
                   {"latency", "0.000000"},
                   {"guid", fmt::format("0x{:x}", n.ordinal + 1)},
                   {"maxconn", "131072"},
                   {"gdr", "1"}},
                  {}};
      e.subs.push_back(Element{"nic", {}, {std::move(net)}});
    }
    return e;
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
  void add_nvlinks(NodeId gpu, Element& e) {
    std::map<std::string, std::pair<int, std::string>> by_target;  // busid -> count, tclass
    std::vector<std::string> order;
    for (const Link& l : t_.links()) {
      if (l.kind != LinkKind::nvlink || (l.a != gpu && l.b != gpu)) continue;
      const NodeId peer = l.a == gpu ? l.b : l.a;
      const Node& p = t_.node(peer);
      if (p.kind != NodeKind::gpu && p.kind != NodeKind::nvswitch) continue;
      if (!busid_.count(peer)) busid_[peer] = next_busid();
      const std::string& target = busid_[peer];
      if (!by_target.count(target)) order.push_back(target);
      auto& entry = by_target[target];
      entry.first += l.lanes;
      entry.second = p.kind == NodeKind::gpu ? "0x030200" : "0x068000";
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
  std::vector<NodeId> pending_gpus_;
  std::vector<std::pair<NodeId, Element*>> gpu_elements_;
  int buses_ = 0;
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
