#include "calibrate/node_skeleton.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "calibrate/sysfs.hpp"

namespace linksim::calibrate {
namespace {
std::string model_name(const std::string& device_name) {
  std::string out;
  for (char c : device_name) {
    out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-') ? c : '-';
  }
  return out.empty() ? std::string("GPU") : out;
}
}  // namespace

Json node_skeleton(const SkeletonInputs& in) {
  Json doc = Json::object();
  doc["title"] = in.title.empty() ? fmt::format("{} GPU node (discovered by linksim calibrate)",
                                                in.devices.size())
                                  : in.title;
  Json notes = Json::array();
  notes.push_back(
      "Discovered with the CUDA runtime and sysfs; peer links (NVLink, PCIe switches) are not "
      "discovered without NVML, so GPUs reach each other over their host's PCIe links. Edit the "
      "links if the node has NVLink.");
  if (in.devices.size() < 2) notes.push_back("One GPU: the node has no peer links.");

  std::set<int> numa;
  for (const auto& d : in.devices)
    numa.insert(std::max(d.numa_node, 0));
  std::map<int, int> cpu_of_numa;
  Json nodes = Json::array();
  for (int n : numa) {
    cpu_of_numa[n] = static_cast<int>(cpu_of_numa.size());
    nodes.push_back({{"id", fmt::format("cpu{}", cpu_of_numa[n])},
                     {"kind", "cpu"},
                     {"vendor", "other"},
                     {"model", "host CPU (not discovered)"},
                     {"numa_node", n}});
  }
  Json models = Json::object();
  for (std::size_t i = 0; i < in.devices.size(); ++i) {
    const auto& d = in.devices[i];
    const std::string name = model_name(d.name);
    if (!models.contains(name)) {
      const double hbm = i < in.hbm_bandwidth_Bps.size() ? in.hbm_bandwidth_Bps[i] : 0;
      const double tflops = i < in.peak_fp32_tflops.size() ? in.peak_fp32_tflops[i] : 0;
      if (hbm <= 0)
        notes.push_back(fmt::format("{}: memory bandwidth not measured, 1000 GB/s assumed", name));
      if (tflops <= 0)
        notes.push_back(fmt::format("{}: FLOP rate not measured, 10 TFLOP/s assumed", name));
      const int gen = pcie_generation_for(d.pcie_gt_per_s);
      models[name] = {
          {"memory", fmt::format("{:.6g} GiB", d.memory_bytes / (1024.0 * 1024 * 1024))},
          {"hbm_bandwidth", fmt::format("{:.6g} GB/s", (hbm > 0 ? hbm : 1e12) / 1e9)},
          {"peak_tflops", {{"fp32", tflops > 0 ? tflops : 10.0}}},
          {"pcie_generation", gen > 0 ? gen : 4},
          {"pcie_width", d.pcie_width > 0 ? d.pcie_width : 16},
          {"sm_count", d.sm_count},
          {"source", "linksim calibrate (CUDA runtime, sysfs, measured)"}};
    }
    nodes.push_back({{"id", fmt::format("gpu{}", i)}, {"kind", "gpu"}, {"model", name}});
  }
  Json links = Json::array();
  for (std::size_t i = 0; i < in.devices.size(); ++i) {
    const auto& d = in.devices[i];
    int gen = pcie_generation_for(d.pcie_gt_per_s);
    if (gen == 0) {
      notes.push_back(fmt::format("gpu{}: PCIe link speed unknown, PCIe 4.0 assumed", i));
      gen = 4;
    }
    links.push_back({{"a", fmt::format("gpu{}", i)},
                     {"b", fmt::format("cpu{}", cpu_of_numa[std::max(d.numa_node, 0)])},
                     {"kind", "pcie"},
                     {"generation", gen},
                     {"width", d.pcie_width > 0 ? d.pcie_width : 16}});
  }
  for (std::size_t c = 1; c < cpu_of_numa.size(); ++c) {
    links.push_back({{"a", "cpu0"}, {"b", fmt::format("cpu{}", c)}, {"kind", "upi"}});
    notes.push_back(fmt::format("cpu0-cpu{}: socket link kind not discovered, UPI assumed", c));
  }
  doc["sources"] = Json::array({"linksim calibrate: CUDA runtime device properties and sysfs"});
  doc["notes"] = notes;
  doc["gpu_models"] = models;
  doc["nodes"] = nodes;
  doc["links"] = links;
  return doc;
}

}  // namespace linksim::calibrate
