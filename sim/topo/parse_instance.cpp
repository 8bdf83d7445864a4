// The "instance" section: a machine as a cloud offers it (provider, name, price per hour and
// its network).
#include <fmt/format.h>

#include <regex>

#include "sim/topo/cluster_loader.hpp"
#include "sim/topo/loader_sections.hpp"

namespace linksim::topo {

Instance parse_instance(const JsonView& instance_view) {
  const JsonView& iv = instance_view;
  iv.expect_only({"provider", "name", "price_per_hour_usd", "price_as_of", "price_source",
                  "network", "network_bandwidth", "network_kind", "sources", "note"});
  Instance inst;
  inst.provider = iv.at("provider").as_string();
  inst.name = iv.at("name").as_string();
  if (auto price = iv.get("price_per_hour_usd")) {
    inst.price_per_hour_usd = price->as_number();
    if (*inst.price_per_hour_usd < 0) price->fail("price cannot be negative");
    // A list price without its date reads as today's; prices change (AWS cut P4 and P5 by up to
    // 45% in June 2025), so every price says when it held and where it was read.
    for (const char* key : {"price_as_of", "price_source"}) {
      if (!iv.has(key)) {
        price->fail(
            fmt::format("a price needs \"{}\" beside it (price_as_of: the date it was "
                        "the list price, YYYY, YYYY-MM or YYYY-MM-DD; price_source: the "
                        "page it was read from)",
                        key));
      }
    }
    const JsonView date = iv.at("price_as_of");
    inst.price_as_of = date.as_string();
    if (!std::regex_match(inst.price_as_of, std::regex("[0-9]{4}(-[0-9]{2}(-[0-9]{2})?)?"))) {
      date.fail("expected a date: YYYY, YYYY-MM or YYYY-MM-DD");
    }
    inst.price_source = iv.at("price_source").as_string();
  } else {
    for (const char* key : {"price_as_of", "price_source"}) {
      if (auto v = iv.get(key)) v->fail("only beside price_per_hour_usd");
    }
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
