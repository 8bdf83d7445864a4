#include "calibrate/measurements_json.hpp"

namespace linksim::calibrate {

Json measurements_to_json(const ProbeResult& result, const std::string& date) {
  Json doc = Json::object();
  doc["format"] = "linksim-measurements-1";
  doc["date"] = date;
  Json devices = Json::array();
  for (const auto& d : result.devices) {
    devices.push_back({{"index", d.index},
                       {"name", d.name},
                       {"pci_bus_id", d.pci_bus_id},
                       {"memory_bytes", d.memory_bytes},
                       {"sm_count", d.sm_count},
                       {"compute_capability",
                        std::to_string(d.compute_major) + "." + std::to_string(d.compute_minor)},
                       {"numa_node", d.numa_node},
                       {"pcie_gt_per_s", d.pcie_gt_per_s},
                       {"pcie_width", d.pcie_width}});
  }
  doc["devices"] = devices;
  doc["notes"] = result.notes;
  Json records = Json::array();
  for (const auto& r : result.records) {
    Json j = {{"kind", r.kind},           {"variant", r.variant},
              {"src_gpu", r.src_gpu},     {"dst_gpu", r.dst_gpu},
              {"gpu_count", r.gpu_count}, {"size_bytes", r.size_bytes},
              {"time_s", r.time_s},       {"bandwidth_Bps", r.bandwidth_Bps}};
    if (r.bus_bandwidth_Bps > 0) j["bus_bandwidth_Bps"] = r.bus_bandwidth_Bps;
    if (r.gpus_per_thread > 0) j["gpus_per_thread"] = r.gpus_per_thread;
    if (r.iterations > 0) j["iterations"] = r.iterations;
    if (r.nccl_version > 0) j["nccl_version"] = r.nccl_version;
    if (r.flops_per_s > 0) j["flops_per_s"] = r.flops_per_s;
    if (r.p2p_enabled) j["p2p_enabled"] = *r.p2p_enabled;
    if (r.repeats > 0) {
      j["repeats"] = r.repeats;
      j["time_spread_s"] = r.time_spread_s;
    }
    records.push_back(std::move(j));
  }
  doc["records"] = records;
  return doc;
}

ProbeResult measurements_from_json(const Json& document, const std::string& file) {
  const JsonView root(document, file);
  ProbeResult out;
  for (const auto& d : root.at("devices").elements()) {
    DeviceInfo info;
    info.index = static_cast<int>(d.at("index").as_integer());
    info.name = d.at("name").as_string();
    info.pci_bus_id = d.string_or("pci_bus_id", "");
    info.memory_bytes = d.number_or("memory_bytes", 0);
    info.sm_count = static_cast<int>(d.integer_or("sm_count", 0));
    info.numa_node = static_cast<int>(d.integer_or("numa_node", -1));
    info.pcie_gt_per_s = d.number_or("pcie_gt_per_s", 0);
    info.pcie_width = static_cast<int>(d.integer_or("pcie_width", 0));
    out.devices.push_back(std::move(info));
  }
  if (auto notes = root.get("notes")) {
    for (const auto& n : notes->elements())
      out.notes.push_back(n.as_string());
  }
  for (const auto& rv : root.at("records").elements()) {
    Record r;
    r.kind = rv.at("kind").as_string();
    r.variant = rv.string_or("variant", "");
    r.src_gpu = static_cast<int>(rv.integer_or("src_gpu", -1));
    r.dst_gpu = static_cast<int>(rv.integer_or("dst_gpu", -1));
    r.gpu_count = static_cast<int>(rv.integer_or("gpu_count", 0));
    r.gpus_per_thread = static_cast<int>(rv.integer_or("gpus_per_thread", 0));
    r.iterations = static_cast<int>(rv.integer_or("iterations", 0));
    r.nccl_version = static_cast<int>(rv.integer_or("nccl_version", 0));
    r.size_bytes = rv.number_or("size_bytes", 0);
    r.time_s = rv.number_or("time_s", 0);
    r.bandwidth_Bps = rv.number_or("bandwidth_Bps", 0);
    r.bus_bandwidth_Bps = rv.number_or("bus_bandwidth_Bps", 0);
    r.flops_per_s = rv.number_or("flops_per_s", 0);
    if (rv.has("p2p_enabled")) r.p2p_enabled = rv.at("p2p_enabled").as_bool();
    r.repeats = static_cast<int>(rv.integer_or("repeats", 0));
    r.time_spread_s = rv.number_or("time_spread_s", 0);
    r.source_file = file;
    r.source_line = 0;
    out.records.push_back(std::move(r));
  }
  return out;
}

}  // namespace linksim::calibrate
