#include "validate/accuracy_data.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "sim/core/csv.hpp"
#include "sim/core/json_number.hpp"
#include "sim/core/units.hpp"

namespace linksim::validate {

using Json = nlohmann::ordered_json;

std::string accuracy_json(const std::vector<AccuracySet>& sets) {
  Json all = Json::array();
  for (const auto& s : sets) {
    Json rows = Json::array();
    for (const auto& r : s.rows) {
      rows.push_back({{"op", std::string(to_string(r.op))},
                      {"size_bytes", exact_json_number(r.size_bytes)},
                      {"measured_busbw_Bps", exact_json_number(r.measured_busbw_Bps)},
                      {"predicted_busbw_Bps", exact_json_number(r.predicted_busbw_Bps)},
                      {"error", exact_json_number(r.error())},
                      {"choice", r.choice},
                      {"counted", r.counted}});
      if (!r.error_note().empty()) rows.back()["error_note"] = r.error_note();
    }
    all.push_back({{"name", s.name},
                   {"topology", s.topology},
                   {"topology_file", s.topology_file},
                   {"source", s.source},
                   {"note", s.note},
                   {"median_abs_error", exact_json_number(s.median_abs_error)},
                   {"max_abs_error", exact_json_number(s.max_abs_error)},
                   {"rows", std::move(rows)}});
  }
  return all.dump(2) + "\n";
}

std::string accuracy_csv(const std::vector<AccuracySet>& sets) {
  std::string out =
      "set,topology,op,size_bytes,measured_busbw_Bps,predicted_busbw_Bps,error,choice,counted,"
      "error_note\n";
  for (const auto& s : sets) {
    for (const auto& r : s.rows) {
      const std::string note = r.error_note();
      out += fmt::format("{},{},{},{},{},{},{},{},{},{}\n", csv_field(s.name),
                         csv_field(s.topology), to_string(r.op), units::exact(r.size_bytes),
                         units::exact(r.measured_busbw_Bps), units::exact(r.predicted_busbw_Bps),
                         note.empty() ? units::exact(r.error()) : "n/a", csv_field(r.choice),
                         r.counted ? "true" : "false", csv_field(note));
    }
  }
  return out;
}

}  // namespace linksim::validate
