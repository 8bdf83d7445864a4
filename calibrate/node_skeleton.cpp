#include "calibrate/node_skeleton.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "calibrate/sysfs.hpp"
#include "sim/topo/machine_writer.hpp"
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

namespace {

// What the printout can give: it must show as many GPUs as CUDA does, and at least two.
bool printout_usable(const SkeletonInputs& in, std::size_t& smi_gpus) {
  smi_gpus = 0;
  if (in.smi) {
    for (const auto& c : in.smi->columns)
      smi_gpus += c.rfind("GPU", 0) == 0 ? 1 : 0;
  }
  return in.smi && smi_gpus == in.devices.size() && in.devices.size() >= 2;
}

// The first note: how the node was discovered, and why NVLinks were or were not taken.
std::string discovery_note(const SkeletonInputs& in, bool use_smi, std::size_t smi_gpus) {
  if (use_smi) {
    return "Discovered with the CUDA runtime, sysfs and nvidia-smi topo -m: NVLinks from its NV# "
           "cells; PCIe switches are not rebuilt, so each GPU hangs off its host's PCIe.";
  }
  if (in.smi) {
    return fmt::format(
        "nvidia-smi topo -m shows {} GPUs where CUDA shows {}: NVLinks not taken "
        "from it.",
        smi_gpus, in.devices.size());
  }
  return "Discovered with the CUDA runtime and sysfs; nvidia-smi topo -m was not available, so "
         "peer links (NVLink, PCIe switches) are not discovered and GPUs reach each other over "
         "their host's PCIe links. Edit the links if the node has NVLink.";
}

// NVLinks from the printout, by the first GPU's architecture.
topo::NvlinkFabric printout_nvlinks(const SkeletonInputs& in, NvlinkGeneration& nv,
                                    std::vector<std::string>& notes) {
  const DeviceInfo& first = in.devices[0];
  nv = nvlink_generation_for(first.compute_major, first.compute_minor);
  const bool known = nv.generation != 0;
  if (!known) nv = {3, 18};  // unknown architecture: noted below if used
  topo::NvlinkFabric fabric =
      topo::nvlink_fabric_from_smi(*in.smi, nv.generation, nv.links_per_gpu);
  if (!fabric.links.empty() && !known) {
    notes.push_back(
        fmt::format("compute capability {}.{} is not in linksim's NVLink table: NVLink 3 assumed",
                    first.compute_major, first.compute_minor));
  }
  for (const auto& a : fabric.assumed)
    notes.push_back("nvidia-smi topo -m: " + a);
  return fabric;
}

// One cpu node per NUMA node the GPUs report (unknown counts as 0); `cpu_of_numa` maps the NUMA
// node to the cpu's ordinal.
void add_cpu_nodes(const SkeletonInputs& in, std::map<int, int>& cpu_of_numa,
                   topo::MachineDocument& doc) {
  std::set<int> numa;
  for (const auto& d : in.devices)
    numa.insert(std::max(d.numa_node, 0));
  for (int n : numa) {
    cpu_of_numa[n] = static_cast<int>(cpu_of_numa.size());
    topo::NodeEntry cpu = topo::node_entry(fmt::format("cpu{}", cpu_of_numa[n]), "cpu");
    cpu.vendor = "other";
    cpu.model = "host CPU (not discovered)";
    cpu.numa_node = n;
    doc.nodes.push_back(cpu);
  }
}

// A gpu_models entry for the device, with its measured memory bandwidth and FLOP rate where
// the probe has them and placeholders (named in the notes) where not.
topo::GpuModelEntry gpu_model_of(const SkeletonInputs& in, std::size_t i, const std::string& name,
                                 std::vector<std::string>& notes) {
  const auto& d = in.devices[i];
  const double hbm = i < in.hbm_bandwidth_Bps.size() ? in.hbm_bandwidth_Bps[i] : 0;
  const double tflops = i < in.peak_fp32_tflops.size() ? in.peak_fp32_tflops[i] : 0;
  if (hbm <= 0)
    notes.push_back(fmt::format("{}: memory bandwidth not measured, 1000 GB/s assumed", name));
  if (tflops <= 0)
    notes.push_back(fmt::format("{}: FLOP rate not measured, 10 TFLOP/s assumed", name));
  const int gen = pcie_generation_for(d.pcie_gt_per_s);
  topo::GpuModelEntry m;
  m.name = name;
  m.memory_bytes = d.memory_bytes;
  m.hbm_bandwidth_Bps = hbm > 0 ? hbm : 1e12;
  m.peak_tflops = {{"fp32", tflops > 0 ? tflops : 10.0}};
  m.pcie_generation = gen > 0 ? gen : 4;
  m.pcie_width = d.pcie_width > 0 ? d.pcie_width : 16;
  m.sm_count = d.sm_count;
  m.source = "linksim calibrate (CUDA runtime, sysfs, measured)";
  return m;
}

// Each GPU's PCIe link to its NUMA node's cpu, at the generation and width sysfs reports.
void add_pcie_links(const SkeletonInputs& in, const std::map<int, int>& cpu_of_numa,
                    topo::MachineDocument& doc) {
  for (std::size_t i = 0; i < in.devices.size(); ++i) {
    const auto& d = in.devices[i];
    int gen = pcie_generation_for(d.pcie_gt_per_s);
    if (gen == 0) {
      doc.notes.push_back(fmt::format("gpu{}: PCIe link speed unknown, PCIe 4.0 assumed", i));
      gen = 4;
    }
    doc.links.push_back(topo::pcie_link_entry(
        fmt::format("gpu{}", i), fmt::format("cpu{}", cpu_of_numa.at(std::max(d.numa_node, 0))),
        gen, d.pcie_width > 0 ? d.pcie_width : 16));
  }
}

}  // namespace

Json node_skeleton(const SkeletonInputs& in) {
  topo::MachineDocument doc;
  doc.title = in.title.empty()
                  ? fmt::format("{} GPU node (discovered by linksim calibrate)", in.devices.size())
                  : in.title;
  doc.sources = {"linksim calibrate: CUDA runtime device properties and sysfs"};
  std::size_t smi_gpus = 0;
  const bool use_smi = printout_usable(in, smi_gpus);
  doc.notes.push_back(discovery_note(in, use_smi, smi_gpus));
  if (in.devices.size() < 2) doc.notes.push_back("One GPU: the node has no peer links.");
  topo::NvlinkFabric fabric;
  NvlinkGeneration nv;
  if (use_smi) fabric = printout_nvlinks(in, nv, doc.notes);

  std::map<int, int> cpu_of_numa;
  add_cpu_nodes(in, cpu_of_numa, doc);
  std::set<std::string> described;
  for (std::size_t i = 0; i < in.devices.size(); ++i) {
    const std::string name = model_name(in.devices[i].name);
    if (described.insert(name).second) {
      doc.gpu_models.push_back(gpu_model_of(in, i, name, doc.notes));
      if (!fabric.links.empty()) {
        doc.gpu_models.back().nvlink_generation = nv.generation;
        doc.gpu_models.back().nvlink_links = nv.links_per_gpu;
      }
    }
    doc.nodes.push_back(topo::node_entry(fmt::format("gpu{}", i), "gpu"));
    doc.nodes.back().model = name;
  }
  add_pcie_links(in, cpu_of_numa, doc);
  doc.nodes.insert(doc.nodes.end(), fabric.nodes.begin(), fabric.nodes.end());
  doc.links.insert(doc.links.end(), fabric.links.begin(), fabric.links.end());
  for (std::size_t c = 1; c < cpu_of_numa.size(); ++c) {
    doc.links.push_back(topo::link_entry("cpu0", fmt::format("cpu{}", c), "upi"));
    doc.notes.push_back(fmt::format("cpu0-cpu{}: socket link kind not discovered, UPI assumed", c));
  }
  return topo::write_machine_document(doc);
}

}  // namespace linksim::calibrate
