#include "sim/topo/machine_writer.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <filesystem>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/topo/host_cpu_swap.hpp"

namespace linksim::topo {
namespace {

Json range_json(const Range& r) {
  return Json::array({r.lo, r.hi});
}

Json string_array(const std::vector<std::string>& items) {
  Json out = Json::array();
  for (const auto& s : items)
    out.push_back(s);
  return out;
}

// The key under which an operation's scales are written in "by_op".
std::string operation_key(CollectiveOp operation) {
  return std::string(to_string(operation));
}

// A collective_calibration entry: the scales and, where the fit bounds them, their ranges; the
// LL and LL128 scales only where they differ from 1 or are bounded.
Json scales_json(const CollectiveScales& s) {
  Json j = {{"latency_scale", s.latency}, {"bandwidth_scale", s.bandwidth}};
  if (s.latency_range) j["latency_scale_range"] = range_json(*s.latency_range);
  if (s.bandwidth_range) j["bandwidth_scale_range"] = range_json(*s.bandwidth_range);
  if (s.ll != 1 || s.ll_range) j["ll_scale"] = s.ll;
  if (s.ll_range) j["ll_scale_range"] = range_json(*s.ll_range);
  if (s.ll128 != 1 || s.ll128_range) j["ll128_scale"] = s.ll128;
  if (s.ll128_range) j["ll128_scale_range"] = range_json(*s.ll128_range);
  return j;
}

void append_strings(Json& document, const char* key, const std::vector<std::string>& items) {
  Json list = document.contains(key) ? document[key] : Json::array();
  for (const auto& s : items)
    list.push_back(s);
  document[key] = std::move(list);
}

// The identity blocks of a node (sim/topo/device_identity.hpp), what is stated only.
void put_text(Json& j, const char* key, const std::string& text) {
  if (!text.empty()) j[key] = text;
}
void put_int(Json& j, const char* key, const std::optional<int>& value) {
  if (value) j[key] = *value;
}

Json cpu_identity_json(const CpuIdentity& c) {
  Json j = Json::object();
  put_text(j, "arch", c.arch);
  put_text(j, "vendor", c.vendor);
  put_int(j, "family", c.family);
  put_int(j, "model", c.model);
  return j;
}

Json pci_identity_json(const PciIdentity& p) {
  Json j = Json::object();
  put_text(j, "bus_id", p.bus_id);
  put_text(j, "class", p.device_class);
  put_text(j, "vendor", p.vendor_id);
  put_text(j, "device", p.device_id);
  put_text(j, "subsystem_vendor", p.subsystem_vendor_id);
  put_text(j, "subsystem_device", p.subsystem_device_id);
  return j;
}

Json nccl_device_json(const NcclDevice& d) {
  Json j = Json::object();
  put_text(j, "name", d.name);
  put_int(j, "dev", d.dev);
  put_int(j, "rank", d.rank);
  put_int(j, "gdr", d.gdr);
  put_text(j, "guid", d.guid);
  put_int(j, "port", d.port);
  put_int(j, "maxconn", d.maxconn);
  if (d.latency_s) j["latency"] = format_latency_field(*d.latency_s);
  return j;
}

}  // namespace

std::string format_bandwidth_field(double bandwidth_Bps) {
  return fmt::format("{:.6g} GB/s", bandwidth_Bps / 1e9);
}

std::string format_latency_field(double latency_s) {
  return fmt::format("{:.6g} us", latency_s * 1e6);
}

Json gpu_model_entry_json(const GpuModelEntry& m) {
  Json peak = Json::object();
  for (const auto& [precision, tflops] : m.peak_tflops)
    peak[precision] = tflops;
  Json j = {{"memory", fmt::format("{:.6g} GiB", m.memory_bytes / (1024.0 * 1024 * 1024))},
            {"hbm_bandwidth", format_bandwidth_field(m.hbm_bandwidth_Bps)},
            {"peak_tflops", peak},
            {"pcie_generation", m.pcie_generation},
            {"pcie_width", m.pcie_width},
            {"sm_count", m.sm_count}};
  if (!m.source.empty()) j["source"] = m.source;
  if (m.nvlink_generation) j["nvlink_generation"] = *m.nvlink_generation;
  if (m.nvlink_links) j["nvlink_links"] = *m.nvlink_links;
  return j;
}

Json node_entry_json(const NodeEntry& n) {
  Json j = {{"id", n.id}, {"kind", n.kind}};
  if (n.count) j["count"] = *n.count;
  if (!n.vendor.empty()) j["vendor"] = n.vendor;
  if (!n.model.empty()) j["model"] = n.model;
  if (n.socket) j["socket"] = *n.socket;
  if (n.numa_node) j["numa_node"] = *n.numa_node;
  if (!n.cores.empty()) j["cores"] = n.cores;
  if (n.port_bandwidth_Bps) {
    j["port_bandwidth"] = fmt::format("{} Mb/s", std::llround(*n.port_bandwidth_Bps * 8 / 1e6));
  }
  if (n.cpuid) j["cpuid"] = cpu_identity_json(*n.cpuid);
  if (n.pci) j["pci"] = pci_identity_json(*n.pci);
  if (n.nccl) j["nccl"] = nccl_device_json(*n.nccl);
  return j;
}

void write_link_figures(Json& entry, const LinkFigures& f) {
  if (f.bandwidth_Bps) entry["bandwidth"] = format_bandwidth_field(*f.bandwidth_Bps);
  if (f.latency_s) entry["latency"] = format_latency_field(*f.latency_s);
  // Rounding to 6 digits is monotone, so a written range still holds the written figure.
  if (f.bandwidth_range_Bps) {
    entry["bandwidth_range"] = Json::array({format_bandwidth_field(f.bandwidth_range_Bps->lo),
                                            format_bandwidth_field(f.bandwidth_range_Bps->hi)});
  }
  if (f.latency_range_s) {
    entry["latency_range"] = Json::array(
        {format_latency_field(f.latency_range_s->lo), format_latency_field(f.latency_range_s->hi)});
  }
  if (!f.basis.empty()) entry["basis"] = f.basis;
  if (!f.source.empty()) entry["source"] = f.source;
}

Json link_entry_json(const LinkEntry& l) {
  Json j = Json::object();
  if (!l.loop.empty()) {
    Json loop = Json::object();
    for (const auto& [variable, values] : l.loop)
      loop[variable] = values;
    j["for"] = loop;
  }
  j["a"] = l.a;
  j["b"] = l.b;
  j["kind"] = l.kind;
  if (l.generation) j["generation"] = *l.generation;
  if (l.lanes) j["lanes"] = *l.lanes;
  if (l.width) j["width"] = *l.width;
  if (l.host_bridge) j["host_bridge"] = *l.host_bridge;
  write_link_figures(j, l.figures);
  return j;
}

Json collective_calibration_json(const CollectiveCalibration& c) {
  Json by_op = Json::object();
  for (const auto& [op, scales] : c.by_op)
    by_op[operation_key(op)] = scales_json(scales);
  Json j = scales_json(c.all);
  j["by_op"] = by_op;
  j["source"] = c.source;
  return j;
}

Json host_launch_json(const HostLaunch& h) {
  Json j = {{"per_gpu", format_latency_field(h.per_gpu_s)}};
  if (h.range_s) {
    j["range"] =
        Json::array({format_latency_field(h.range_s->lo), format_latency_field(h.range_s->hi)});
  }
  if (!h.source.empty()) j["source"] = h.source;
  return j;
}

Json write_machine_document(const MachineDocument& m) {
  Json doc = Json::object();
  if (!m.schema.empty()) doc["$schema"] = m.schema;
  doc["title"] = m.title;
  if (!m.description.empty()) doc["description"] = m.description;
  if (!m.sources.empty()) doc["sources"] = string_array(m.sources);
  if (!m.notes.empty()) doc["notes"] = string_array(m.notes);
  if (!m.gpu_models.empty()) {
    Json models = Json::object();
    for (const auto& g : m.gpu_models)
      models[g.name] = gpu_model_entry_json(g);
    doc["gpu_models"] = models;
  }
  Json nodes = Json::array();
  for (const auto& n : m.nodes)
    nodes.push_back(node_entry_json(n));
  doc["nodes"] = nodes;
  Json links = Json::array();
  for (const auto& l : m.links)
    links.push_back(link_entry_json(l));
  doc["links"] = links;
  if (m.collective) doc["collective_calibration"] = collective_calibration_json(*m.collective);
  if (m.host_launch) doc["host_launch"] = host_launch_json(*m.host_launch);
  return doc;
}

void expect_self_contained(const JsonView& document) {
  if (document.has("base")) {
    document.at("base").fail("expected a self-contained machine (no \"base\")");
  }
}

std::vector<JsonView> link_entries(const JsonView& document) {
  return document.at("links").elements();
}

void set_link_entries(Json& document, Json entries) {
  document["links"] = std::move(entries);
}

std::size_t link_entry_expansion(const JsonView& entry) {
  auto loops = entry.get("for");
  if (!loops) return 1;
  std::size_t n = 1;
  for (const auto& [name, v] : loops->members()) {
    if (v.is_array()) {
      n *= v.elements().size();
    } else {
      const std::string range = v.as_string();
      const auto dots = range.find("..");
      if (dots == std::string::npos) v.fail("expected \"lo..hi\"");
      const long long lo = std::stoll(range.substr(0, dots));
      const long long hi = std::stoll(range.substr(dots + 2));
      n *= hi >= lo ? static_cast<std::size_t>(hi - lo + 1) : 0;
    }
  }
  return n;
}

Json concrete_link_entry(const Json& entry, const std::string& a, const std::string& b,
                         int host_bridge) {
  Json out = entry;
  out.erase("for");
  out["a"] = a;
  out["b"] = b;
  if (out.contains("host_bridge")) out["host_bridge"] = host_bridge;
  return out;
}

void append_sources(Json& document, const std::vector<std::string>& sources) {
  append_strings(document, "sources", sources);
}

void append_notes(Json& document, const std::vector<std::string>& notes) {
  append_strings(document, "notes", notes);
}

void set_collective_calibration(Json& document, const CollectiveCalibration& calibration) {
  document["collective_calibration"] = collective_calibration_json(calibration);
}

void set_host_launch(Json& document, const HostLaunch& launch) {
  document["host_launch"] = host_launch_json(launch);
}

namespace {
// " with replace_models applied", " with replace_models and replace_cpus applied", or "".
std::string applied_replacements(const Json& document) {
  std::vector<std::string> keys;
  for (const char* key : {"replace_models", "replace_cpus"}) {
    if (document.contains(key)) keys.emplace_back(key);
  }
  if (keys.empty()) return "";
  return fmt::format(" with {} applied", fmt::join(keys, " and "));
}
}  // namespace

Json self_contained_machine_document(const Json& document, const std::string& file) {
  const JsonView root(document, file);
  if (!root.has("base")) return document;
  const std::filesystem::path base_path =
      std::filesystem::path(file).parent_path() / root.at("base").as_string();
  if (!std::filesystem::exists(base_path)) {
    root.at("base").fail(fmt::format("base machine \"{}\" not found (looked for {})",
                                     root.at("base").as_string(), base_path.string()));
  }
  Json out =
      self_contained_machine_document(read_json_file(base_path.string()), base_path.string());
  if (document.contains("replace_models")) {
    for (auto& node : out["nodes"]) {
      if (!node.contains("model") || !node["model"].is_string()) continue;
      const std::string model = node["model"];
      if (document["replace_models"].contains(model)) {
        node["model"] = document["replace_models"][model];
      }
    }
  }
  if (auto cpus = root.get("replace_cpus")) replace_host_cpus_in_document(*cpus, out);
  for (const auto& [key, value] : document.items()) {
    if (key == "base" || key == "replace_models" || key == "replace_cpus") continue;
    if ((key == "sources" || key == "notes") && out.contains(key) && out[key].is_array()) {
      for (const auto& item : value)
        out[key].push_back(item);
    } else {
      out[key] = value;
    }
  }
  out["notes"].push_back(fmt::format("Self-contained: the nodes and links of base \"{}\"{}.",
                                     root.at("base").as_string(), applied_replacements(document)));
  return out;
}

}  // namespace linksim::topo
