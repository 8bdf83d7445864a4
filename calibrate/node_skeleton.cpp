#include "calibrate/node_skeleton.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "calibrate/sysfs.hpp"
#include "sim/topo/smi_matrix_nvlink.hpp"

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

NvlinkGeneration nvlink_generation_for(int major, int minor) {
  const int cc = 10 * major + minor;
  if (cc == 60) return {1, 4};
  if (cc == 70) return {2, 6};
  if (cc == 80) return {3, 12};
  if (cc == 86) return {3, 4};
  if (cc == 90) return {4, 18};
  if (cc == 100) return {5, 18};
  return {};
}

Json node_skeleton(const SkeletonInputs& in) {
  Json doc = Json::object();
  doc["title"] = in.title.empty() ? fmt::format("{} GPU node (discovered by linksim calibrate)",
                                                in.devices.size())
                                  : in.title;
  Json notes = Json::array();
  std::size_t smi_gpus = 0;
  if (in.smi) {
    for (const auto& c : in.smi->columns)
      smi_gpus += c.rfind("GPU", 0) == 0 ? 1 : 0;
  }
  const bool use_smi = in.smi && smi_gpus == in.devices.size() && in.devices.size() >= 2;
  if (use_smi) {
    notes.push_back(
        "Discovered with the CUDA runtime, sysfs and nvidia-smi topo -m: NVLinks from its NV# "
        "cells; PCIe switches are not rebuilt, so each GPU hangs off its host's PCIe.");
  } else {
    notes.push_back(
        in.smi ? fmt::format("nvidia-smi topo -m shows {} GPUs where CUDA shows {}: NVLinks not "
                             "taken from it.",
                             smi_gpus, in.devices.size())
               : std::string("Discovered with the CUDA runtime and sysfs; nvidia-smi topo -m was "
                             "not available, so peer links (NVLink, PCIe switches) are not "
                             "discovered and GPUs reach each other over their host's PCIe "
                             "links. Edit the links if the node has NVLink."));
  }
  if (in.devices.size() < 2) notes.push_back("One GPU: the node has no peer links.");
  // NVLinks from the printout, by the first GPU's architecture.
  topo::NvlinkFabric fabric;
  NvlinkGeneration nv;
  if (use_smi) {
    nv = nvlink_generation_for(in.devices[0].compute_major, in.devices[0].compute_minor);
    if (nv.generation == 0) nv = {3, 18};  // unknown architecture: noted below if used
    fabric = topo::nvlink_fabric_from_smi(*in.smi, nv.generation, nv.links_per_gpu);
    if (!fabric.links.empty() &&
        nvlink_generation_for(in.devices[0].compute_major, in.devices[0].compute_minor)
                .generation == 0) {
      notes.push_back(
          fmt::format("compute capability {}.{} is not in linksim's NVLink table: NVLink 3 assumed",
                      in.devices[0].compute_major, in.devices[0].compute_minor));
    }
    for (const auto& a : fabric.assumed)
      notes.push_back("nvidia-smi topo -m: " + a);
  }

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
      if (!fabric.links.empty()) {
        models[name]["nvlink_generation"] = nv.generation;
        models[name]["nvlink_links"] = nv.links_per_gpu;
      }
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
  for (auto& node : fabric.nodes)
    nodes.push_back(std::move(node));
  for (auto& link : fabric.links)
    links.push_back(std::move(link));
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
