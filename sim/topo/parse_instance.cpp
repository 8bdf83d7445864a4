// The "instance" section: a machine as a cloud offers it (provider, name, price per hour and
// its network).
#include "sim/topo/cluster_loader.hpp"
#include "sim/topo/loader_sections.hpp"

namespace linksim::topo {

Instance parse_instance(const JsonView& instance_view) {
  const JsonView& iv = instance_view;
  iv.expect_only({"provider", "name", "price_per_hour_usd", "network", "network_bandwidth",
                  "network_kind", "sources", "note"});
  Instance inst;
  inst.provider = iv.at("provider").as_string();
  inst.name = iv.at("name").as_string();
  if (auto price = iv.get("price_per_hour_usd")) {
    inst.price_per_hour_usd = price->as_number();
    if (*inst.price_per_hour_usd < 0) price->fail("price cannot be negative");
  }
  inst.network = iv.string_or("network", "");
  if (auto nb = iv.get("network_bandwidth")) inst.network_bandwidth_Bps = bandwidth_field(*nb);
  if (auto nk = iv.get("network_kind")) inst.network_kind = fabric_kind_field(*nk);
  if (auto s = iv.get("sources")) {
    for (const auto& e : s->elements())
      inst.sources.push_back(e.as_string());
  }
  return inst;
}

}  // namespace linksim::topo
