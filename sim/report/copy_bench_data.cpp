#include "sim/report/copy_bench_data.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <vector>

#include "sim/core/json_number.hpp"
#include "sim/core/units.hpp"

namespace linksim::report {
namespace {

using Matrix = std::vector<std::vector<double>>;

nlohmann::ordered_json matrix_json(const Matrix& m) {
  auto rows = nlohmann::ordered_json::array();
  for (const auto& row : m) {
    auto cells = nlohmann::ordered_json::array();
    for (double v : row)
      cells.push_back(exact_json_number(v));
    rows.push_back(std::move(cells));
  }
  return rows;
}

struct NamedMatrix {
  std::string name;
  const Matrix* values;
};

// The matrices of both runs, named as in the JSON.
std::vector<NamedMatrix> named_matrices(const coll::CopyMatrices& off,
                                        const coll::CopyMatrices& on) {
  std::vector<NamedMatrix> out;
  for (const auto& [run, m] : {std::pair{"p2p_disabled", &off}, std::pair{"p2p_enabled", &on}}) {
    const std::string prefix = std::string(run) + ".";
    out.push_back({prefix + "unidirectional_Bps", &m->uni_Bps});
    out.push_back({prefix + "bidirectional_Bps", &m->bidi_Bps});
    out.push_back({prefix + "latency_s", &m->latency_s});
    out.push_back({prefix + "cpu_latency_s", &m->cpu_latency_s});
  }
  return out;
}

struct BandwidthRow {
  const char* direction;
  double size_bytes;
  double bandwidth_Bps;
};

// What the printout's rows hold: each wanted direction at each size, summed over the devices.
std::vector<BandwidthRow> bandwidth_rows(const topo::Topology& topo,
                                         const BandwidthTestOptions& options,
                                         std::vector<int>* devices) {
  const std::vector<topo::NodeId> used = bandwidth_test_gpus(topo, options);
  for (auto g : used)
    devices->push_back(topo.node(g).ordinal);
  struct Kind {
    bool wanted;
    const char* name;
    double coll::HostDeviceFigures::*figure;
  };
  const Kind kinds[] = {{options.htod, "H2D", &coll::HostDeviceFigures::h2d_Bps},
                        {options.dtoh, "D2H", &coll::HostDeviceFigures::d2h_Bps},
                        {options.dtod, "D2D", &coll::HostDeviceFigures::d2d_Bps}};
  std::vector<BandwidthRow> rows;
  const std::vector<double> sizes = bandwidth_test_sizes(options);
  for (const Kind& k : kinds) {
    if (!k.wanted) continue;
    for (double size : sizes) {
      double sum = 0;
      for (auto g : used)
        sum += coll::bandwidth_test(topo, g, size).*k.figure;
      rows.push_back({k.name, size, sum});
    }
  }
  return rows;
}

}  // namespace

std::string p2p_test_json(const topo::Topology& topo, const P2pTestOptions& options) {
  const auto gpus = topo.nodes_of(topo::NodeKind::gpu);
  nlohmann::ordered_json j;
  j["machine"] = topo.name;
  auto models = nlohmann::ordered_json::array();
  for (auto g : gpus)
    models.push_back(topo.node(g).model);
  j["gpus"] = models;
  j["peer_access"] = coll::peer_access(topo);
  j["copy_bytes"] = exact_json_number(options.copy_bytes);
  const coll::CopyMatrices off = coll::p2p_matrices(topo, false, options.copy_bytes);
  const coll::CopyMatrices on = coll::p2p_matrices(topo, true, options.copy_bytes);
  for (const auto& [run, m] : {std::pair{"p2p_disabled", &off}, std::pair{"p2p_enabled", &on}}) {
    j[run]["unidirectional_Bps"] = matrix_json(m->uni_Bps);
    j[run]["bidirectional_Bps"] = matrix_json(m->bidi_Bps);
    j[run]["latency_s"] = matrix_json(m->latency_s);
    j[run]["cpu_latency_s"] = matrix_json(m->cpu_latency_s);
  }
  return j.dump(2) + "\n";
}

std::string p2p_test_csv(const topo::Topology& topo, const P2pTestOptions& options) {
  const coll::CopyMatrices off = coll::p2p_matrices(topo, false, options.copy_bytes);
  const coll::CopyMatrices on = coll::p2p_matrices(topo, true, options.copy_bytes);
  std::string out = "matrix,src,dst,value\n";
  for (const auto& m : named_matrices(off, on)) {
    for (std::size_t i = 0; i < m.values->size(); ++i) {
      for (std::size_t k = 0; k < (*m.values)[i].size(); ++k)
        out += fmt::format("{},{},{},{}\n", m.name, i, k, units::exact((*m.values)[i][k]));
    }
  }
  return out;
}

std::string bandwidth_test_json(const topo::Topology& topo, const BandwidthTestOptions& options) {
  std::vector<int> devices;
  const auto rows = bandwidth_rows(topo, options, &devices);
  nlohmann::ordered_json j;
  j["machine"] = topo.name;
  j["devices"] = devices;
  auto results = nlohmann::ordered_json::array();
  for (const auto& r : rows) {
    nlohmann::ordered_json row;
    row["direction"] = r.direction;
    row["size_bytes"] = exact_json_number(r.size_bytes);
    row["bandwidth_Bps"] = exact_json_number(r.bandwidth_Bps);
    results.push_back(std::move(row));
  }
  j["results"] = std::move(results);
  return j.dump(2) + "\n";
}

std::string bandwidth_test_csv(const topo::Topology& topo, const BandwidthTestOptions& options) {
  std::vector<int> devices;
  std::string out = "direction,size_bytes,bandwidth_Bps\n";
  for (const auto& r : bandwidth_rows(topo, options, &devices))
    out += fmt::format("{},{},{}\n", r.direction, units::exact(r.size_bytes),
                       units::exact(r.bandwidth_Bps));
  return out;
}

}  // namespace linksim::report
