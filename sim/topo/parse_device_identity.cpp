// A node's "cpuid", "pci" and "nccl" blocks (sim/topo/device_identity.hpp): what a dump stated
// about the device, kept for exporting it back. Each block needs at least one field; every
// field is checked for the form the dump gives it in, so a typo is an error here and not a
// malformed export later.
#include <fmt/format.h>

#include "sim/topo/loader_sections.hpp"

namespace linksim::topo {
namespace {

// A non-empty text field, or "" when absent.
std::string text_field(const JsonView& block, const char* key) {
  auto v = block.get(key);
  if (!v) return "";
  const std::string text = v->as_string();
  if (text.empty()) v->fail("expected a non-empty string");
  return text;
}

// "0x..." hex (a PCI id or class, a GUID), or "" when absent.
std::string hex_field(const JsonView& block, const char* key) {
  const std::string text = text_field(block, key);
  if (!text.empty() && !is_hex_id(text)) {
    block.at(key).fail(fmt::format("\"{}\": {}", text, kHexIdExpected));
  }
  return text;
}

// An integer of 0 or more (9 digits at most, as the XML import reads them), or unset when
// absent.
std::optional<int> count_field(const JsonView& block, const char* key) {
  auto v = block.get(key);
  if (!v) return std::nullopt;
  const std::int64_t n = v->as_integer();
  if (n < 0 || n > 999'999'999) v->fail("expected an integer from 0 to 999999999");
  return static_cast<int>(n);
}

void expect_some(const JsonView& block) {
  if (block.members().empty()) block.fail("expected at least one field");
}

}  // namespace

CpuIdentity cpu_identity_field(const JsonView& v) {
  v.expect_only({"arch", "vendor", "family", "model"});
  expect_some(v);
  CpuIdentity c;
  c.arch = text_field(v, "arch");
  c.vendor = text_field(v, "vendor");
  c.family = count_field(v, "family");
  c.model = count_field(v, "model");
  return c;
}

PciIdentity pci_identity_field(const JsonView& v) {
  v.expect_only({"bus_id", "class", "vendor", "device", "subsystem_vendor", "subsystem_device"});
  expect_some(v);
  PciIdentity p;
  p.bus_id = text_field(v, "bus_id");
  if (!p.bus_id.empty() && !is_pci_bus_id(p.bus_id)) {
    v.at("bus_id").fail(fmt::format("\"{}\": {}", p.bus_id, kPciBusIdExpected));
  }
  p.device_class = hex_field(v, "class");
  p.vendor_id = hex_field(v, "vendor");
  p.device_id = hex_field(v, "device");
  p.subsystem_vendor_id = hex_field(v, "subsystem_vendor");
  p.subsystem_device_id = hex_field(v, "subsystem_device");
  return p;
}

NcclDevice nccl_device_field(const JsonView& v, NodeKind kind) {
  if (kind == NodeKind::gpu) {
    v.expect_only({"dev", "rank", "gdr"});
  } else {
    v.expect_only({"name", "dev", "gdr", "guid", "port", "maxconn", "latency"});
  }
  expect_some(v);
  NcclDevice d;
  d.name = text_field(v, "name");
  d.dev = count_field(v, "dev");
  d.rank = count_field(v, "rank");
  d.gdr = count_field(v, "gdr");
  d.guid = hex_field(v, "guid");
  d.port = count_field(v, "port");
  d.maxconn = count_field(v, "maxconn");
  if (auto lat = v.get("latency")) {
    // The plugin's figure, 0 where it states none: not a hop latency, so 0 is allowed.
    const double s = lat->as_time_s();
    if (!(s >= 0 && s <= kMaxLatency_s)) {
      lat->fail(fmt::format("latency \"{}\": expected 0 to 1 ms", lat->as_string()));
    }
    d.latency_s = s;
  }
  return d;
}

}  // namespace linksim::topo
