#include "sim/report/machine_data.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <nlohmann/json.hpp>

#include "sim/core/csv.hpp"
#include "sim/core/json_number.hpp"
#include "sim/core/units.hpp"
#include "sim/topo/fabric_summary.hpp"
#include "sim/topo/summary.hpp"

namespace linksim::report {
namespace {

using Json = nlohmann::ordered_json;

const topo::Topology& host_of(const topo::Topology& machine) {
  return machine.is_cluster() ? *machine.cluster->host : machine;
}

// Model -> count over the machine's GPUs, in name order.
std::map<std::string, int> gpu_models(const topo::Topology& machine) {
  std::map<std::string, int> models;
  for (topo::NodeId g : machine.nodes_of(topo::NodeKind::gpu))
    models[machine.node(g).model]++;
  return models;
}

std::string models_text(const std::map<std::string, int>& models) {
  std::vector<std::string> parts;
  for (const auto& [m, n] : models)
    parts.push_back(fmt::format("{}x {}", n, m));
  return fmt::format("{}", fmt::join(parts, " + "));
}

Json pair_json(const topo::Topology& host, const std::optional<topo::PairFigure>& p) {
  if (!p) return nullptr;
  return {{"a", host.node(p->a).id},
          {"b", host.node(p->b).id},
          {"transport", std::string(topo::to_string(p->transport))},
          {"bandwidth_Bps", exact_json_number(p->bandwidth_Bps)}};
}

Json fabric_json(const topo::FabricSummary& f) {
  return {{"hosts", f.hosts},
          {"gpus", f.gpus},
          {"rails", f.rails},
          {"leaves", f.leaves},
          {"spines", f.spines},
          {"cores", f.cores},
          {"per_gpu_scale_out_Bps", exact_json_number(f.per_gpu_scale_out_Bps)},
          {"per_host_scale_out_Bps", exact_json_number(f.per_host_scale_out_Bps)},
          {"bisection_Bps", exact_json_number(f.bisection_Bps)},
          {"oversubscription", exact_json_number(f.oversubscription)},
          {"hops_same_leaf", f.hops_same_leaf},
          {"hops_worst", f.hops_worst}};
}

Json check_json(const topo::Topology& machine) {
  const topo::Topology& host = host_of(machine);
  const topo::Router router(host);
  const topo::MachineSummary s = topo::summarize(host, router);
  Json j;
  j["machine"] = machine.name;
  j["file"] = machine.file;
  j["title"] = machine.title;
  j["gpus"] = s.gpu_count;
  j["gpu_models"] = s.gpu_models;
  j["links"] = s.link_labels;
  j["nvswitches"] = s.nvswitch_count;
  j["pcie_switches"] = s.pcie_switch_count;
  j["cpus"] = s.cpu_count;
  j["sockets"] = s.socket_count;
  j["nics"] = s.nic_count;
  j["nvlink_injection_Bps"] = exact_json_number(s.nvlink_injection_Bps);
  j["pcie_injection_Bps"] = exact_json_number(s.pcie_injection_Bps);
  j["bisection_Bps"] = s.bisection_Bps ? exact_json_number(*s.bisection_Bps) : Json(nullptr);
  j["fastest_pair"] = pair_json(host, s.fastest_pair);
  j["slowest_pair"] = pair_json(host, s.slowest_pair);
  j["transports"] = s.transports;
  j["pair_sources"] = s.pair_sources;
  j["notes"] = host.notes;
  if (machine.is_cluster()) j["fabric"] = fabric_json(topo::summarize_fabric(machine));
  return j;
}

// A scalar as CSV text: numbers in units::exact's form (as every linksim CSV), strings quoted as
// needed, null empty.
std::string csv_value(const Json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return csv_field(v.get<std::string>());
  if (v.is_number_float()) return units::exact(v.get<double>());
  return v.dump();
}

// The machine's hourly price where its file gives one, else null. A pointer, not a copied
// optional: GCC 12 at -O3 takes the copy's value for maybe uninitialized.
const double* hourly_price(const topo::Topology& m) {
  return m.instance && m.instance->price_per_hour_usd ? &*m.instance->price_per_hour_usd : nullptr;
}

}  // namespace

std::string machine_check_json(const topo::Topology& machine) {
  return check_json(machine).dump(2) + "\n";
}

std::string machine_check_csv(const topo::Topology& machine) {
  const Json j = check_json(machine);
  std::vector<std::string> names;
  std::vector<std::string> values;
  const auto add = [&](const std::string& name, const Json& v) {
    names.push_back(name);
    values.push_back(csv_value(v));
  };
  for (const auto& [key, v] : j.items()) {
    if (v.is_primitive()) {
      add(key, v);
    } else if (key == "fastest_pair" || key == "slowest_pair") {
      add(key + "_bandwidth_Bps", v.is_null() ? Json(nullptr) : v["bandwidth_Bps"]);
    } else if (key == "fabric") {
      for (const auto& [fk, fv] : v.items())
        add("fabric_" + fk, fv);
    }
  }
  return fmt::format("{}\n{}\n", fmt::join(names, ","), fmt::join(values, ","));
}

std::string machines_list_json(const std::vector<topo::Topology>& machines) {
  Json all = Json::array();
  for (const auto& m : machines) {
    const double* price = hourly_price(m);
    all.push_back({{"machine", m.name},
                   {"file", m.file},
                   {"gpus", m.count(topo::NodeKind::gpu)},
                   {"gpu_models", gpu_models(m)},
                   {"price_per_hour_usd", price ? exact_json_number(*price) : Json(nullptr)},
                   {"price_as_of", price ? Json(m.instance->price_as_of) : Json(nullptr)},
                   {"title", m.title}});
  }
  return all.dump(2) + "\n";
}

std::string machines_list_csv(const std::vector<topo::Topology>& machines) {
  std::string out = "machine,gpus,gpu_models,price_per_hour_usd,price_as_of,title\n";
  for (const auto& m : machines) {
    const double* price = hourly_price(m);
    out += fmt::format("{},{},{},{},{},{}\n", csv_field(m.name), m.count(topo::NodeKind::gpu),
                       csv_field(models_text(gpu_models(m))), price ? units::exact(*price) : "",
                       price ? csv_field(m.instance->price_as_of) : "", csv_field(m.title));
  }
  return out;
}

}  // namespace linksim::report
