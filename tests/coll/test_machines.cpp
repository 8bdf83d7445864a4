#include "tests/coll/test_machines.hpp"

#include <fmt/format.h>

#include "sim/core/json_view.hpp"
#include "sim/topo/loader.hpp"

namespace linksim::coll::testing {

topo::Topology a100_nvlink_pair() {
  return topo::parse_topology(Json::parse(R"({
    "title": "pair", "nodes": [{"id": "gpu", "kind": "gpu", "count": 2, "model": "A100-SXM4-80GB"}],
    "links": [{"a": "gpu0", "b": "gpu1", "kind": "nvlink", "generation": 3, "lanes": 4}]})"),
                              "a100-pair.json");
}

topo::Topology l40s_pcie_pair() {
  return topo::parse_topology(Json::parse(R"({
    "title": "pcie pair",
    "nodes": [{"id": "gpu", "kind": "gpu", "count": 2, "model": "L40S"},
              {"id": "cpu0", "kind": "cpu", "vendor": "intel"},
              {"id": "sw", "kind": "pcie_switch"}],
    "links": [{"for": {"g": "0..1"}, "a": "gpu{g}", "b": "sw", "kind": "pcie", "generation": 4},
              {"a": "sw", "b": "cpu0", "kind": "pcie", "generation": 4}]})"),
                              "l40s-pair.json");
}

topo::Topology nvswitch_pair(const std::string& model, int generation, int lanes) {
  return topo::parse_topology(Json::parse(fmt::format(R"({{
    "title": "switched pair",
    "nodes": [{{"id": "gpu", "kind": "gpu", "count": 2, "model": "{}"}},
              {{"id": "nvswitch", "kind": "nvswitch"}}],
    "links": [{{"for": {{"g": "0..1"}}, "a": "gpu{{g}}", "b": "nvswitch", "kind": "nvlink",
                "generation": {}, "lanes": {}}}]}})",
                                                      model, generation, lanes)),
                              "switched-pair.json");
}

topo::Topology h100_direct_pair() {
  return topo::parse_topology(Json::parse(R"({
    "title": "direct pair", "nodes": [{"id": "gpu", "kind": "gpu", "count": 2, "model": "H100-SXM5-80GB"}],
    "links": [{"a": "gpu0", "b": "gpu1", "kind": "nvlink", "generation": 4, "lanes": 18}]})"),
                              "h100-pair.json");
}

}  // namespace linksim::coll::testing
