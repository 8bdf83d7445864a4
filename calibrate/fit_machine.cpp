#include "calibrate/fit_machine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <system_error>

#include "calibrate/calibrated_document.hpp"
#include "calibrate/collective_fit.hpp"
#include "calibrate/import_bandwidth_test.hpp"
#include "calibrate/import_nccl_tests.hpp"
#include "calibrate/import_nvbandwidth.hpp"
#include "calibrate/import_p2p_matrix.hpp"
#include "calibrate/path_map.hpp"
#include "calibrate/text_lines.hpp"
#include "sim/core/json_view.hpp"
#include "sim/core/units.hpp"
#include "sim/topo/loader.hpp"
#include "sim/topo/machine_writer.hpp"
#include "sim/topo/routing.hpp"

namespace linksim::calibrate {

std::string_view to_string(LogFormat format) {
  switch (format) {
    case LogFormat::nccl_tests:
      return "nccl-tests";
    case LogFormat::p2p_matrix:
      return "p2pBandwidthLatencyTest";
    case LogFormat::bandwidth_test:
      return "bandwidthTest";
    case LogFormat::nvbandwidth:
      return "nvbandwidth";
  }
  return "?";
}

std::vector<Record> import_log(const LogInput& log, const ImportOptions& options) {
  switch (log.format) {
    case LogFormat::nccl_tests:
      return import_nccl_tests_file(log.path, options).records;
    case LogFormat::p2p_matrix:
      return import_p2p_matrix_file(log.path, options);
    case LogFormat::bandwidth_test:
      return import_bandwidth_test_file(log.path, options);
    case LogFormat::nvbandwidth:
      return import_nvbandwidth_file(log.path, options);
  }
  return {};
}

namespace {

std::string link_name(const topo::Topology& t, topo::LinkId id) {
  const auto& l = t.link(id);
  return fmt::format("{} <-> {} ({})", t.node(l.a).id, t.node(l.b).id,
                     topo::link_label(l.kind, l.generation, l.lanes, l.width));
}

std::string describe_fit(const AlphaBetaFit& f) {
  std::string out = fmt::format("beta {:.4g} GB/s", f.bandwidth_Bps / 1e9);
  if (f.has_interval) {
    out += fmt::format(" [{:.4g}, {}]", f.bandwidth_lo_Bps / 1e9,
                       std::isinf(f.bandwidth_hi_Bps)
                           ? std::string("inf")
                           : fmt::format("{:.4g}", f.bandwidth_hi_Bps / 1e9));
  }
  if (f.latency_identified) {
    out += fmt::format(", alpha {:.4g} us", f.latency_s * 1e6);
    if (f.has_interval) {
      out += fmt::format(" [{:.4g}, {:.4g}]", f.latency_lo_s * 1e6, f.latency_hi_s * 1e6);
    }
  }
  out += fmt::format(", {} samples, rms error {:.2f}%", f.sizes, f.relative_rms * 100);
  if (f.small) {
    out += fmt::format("; below {}: alpha {:.4g} us, beta {:.4g} GB/s",
                       units::format_bytes(f.break_size_bytes), f.small->latency_s * 1e6,
                       f.small->bandwidth_Bps / 1e9);
  }
  if (!f.note.empty()) out += " (" + f.note + ")";
  return out;
}

std::string status_of(const Record& r) {
  if (is_nccl(r)) return "fitted (collective)";
  if (is_link_fittable(r)) return "fitted";
  if (r.kind == kind::d2d) return "device memory, not a link";
  if (r.kind == kind::p2p_latency) return "reported (CPU-timed)";
  if (r.variant == "pageable") return "reported (pageable)";
  return "reported";
}

}  // namespace

namespace {

// One nccl-tests log: its records, and the sweep's summary with its descriptive fit.
void import_nccl_log(const std::string& bytes, const NcclTestsLogArgument& arg,
                     const ImportOptions& import_options, const FitOptions& fit,
                     FitMachineResult& result) {
  ImportOptions nccl_options = import_options;
  nccl_options.nccl_tests_binary = arg.binary;
  auto nccl = import_nccl_tests(bytes, arg.path, nccl_options);
  NcclSummary summary;
  summary.op = nccl.op;
  summary.source = arg.path;
  summary.ranks = nccl.ranks;
  summary.avg_bus_bandwidth_Bps = nccl.avg_bus_bandwidth_Bps;
  std::vector<Sample> samples;
  for (const auto& r : nccl.records) {
    if (r.variant == "out_of_place" && r.size_bytes > 0 && r.time_s > 0) {
      samples.push_back({r.size_bytes, r.time_s});
    }
  }
  if (samples.size() >= 2) {
    try {
      summary.descriptive = fit_alpha_beta(samples, fit);
    } catch (const std::invalid_argument&) {
      // A sweep whose time does not grow with size has no alpha/beta description.
    }
  }
  result.nccl.push_back(std::move(summary));
  for (auto& r : nccl.records)
    result.records.push_back(std::move(r));
}

// Reads every log into result.records, each named in the provenance with its size and hash.
void import_logs(const FitMachineOptions& options, const ImportOptions& import_options,
                 FitMachineResult& result, CalibrationProvenance& provenance,
                 const std::function<void()>& step_done) {
  for (const auto& log : options.logs) {
    // An nccl-tests log may come as FILE:BINARY.
    const NcclTestsLogArgument arg = log.format == LogFormat::nccl_tests
                                         ? split_nccl_tests_log_argument(log.path)
                                         : NcclTestsLogArgument{log.path, ""};
    const std::string bytes = read_text_file(arg.path);
    provenance.sources.push_back(fmt::format("{} log {} ({} bytes, fnv1a64 {})",
                                             to_string(log.format), arg.path, bytes.size(),
                                             fnv1a64_hex(bytes)));
    std::vector<Record> recs;
    switch (log.format) {
      case LogFormat::nccl_tests:
        import_nccl_log(bytes, arg, import_options, options.fit, result);
        break;
      case LogFormat::p2p_matrix:
        recs = import_p2p_matrix(bytes, log.path, import_options);
        break;
      case LogFormat::bandwidth_test:
        recs = import_bandwidth_test(bytes, log.path, import_options);
        break;
      case LogFormat::nvbandwidth:
        recs = import_nvbandwidth(bytes, log.path, import_options);
        break;
    }
    for (auto& r : recs)
      result.records.push_back(std::move(r));
    step_done();
  }
  for (const auto& r : options.extra_records)
    result.records.push_back(r);
}

// Notes: date, one line per fitted series.
void add_fit_notes(const FitMachineOptions& options, FitMachineResult& result) {
  result.notes.push_back(fmt::format(
      "Calibrated by linksim fit ({}): {} link(s) carry effective figures fitted from {} "
      "measurement(s); see the sources below and each link's \"source\".",
      options.date.empty() ? std::string("date not recorded") : "on " + options.date,
      result.overrides.size(), result.records.size()));
  for (const auto& s : result.series) {
    result.notes.push_back(fmt::format("linksim fit {}: {}", describe(s.key), describe_fit(s.fit)));
  }
}

// nccl-tests logs: fits the collective model's corrections on the link-calibrated machine and
// writes them, with the host launch cost where the logs identify it, into the document.
void fit_collective_model(const std::string& topo_path, FitMachineResult& result) {
  const topo::Topology linked = topo::parse_topology(result.document, topo_path);
  result.collective = fit_collectives(linked, result.records);
  if (!result.collective) return;
  const auto& c = result.collective->calibration;
  topo::set_collective_calibration(result.document, c);
  if (result.collective->host_launch.per_gpu_s > 0) {
    topo::HostLaunch h = result.collective->host_launch;
    h.source = "linksim fit: the launch-bound sizes of the nccl-tests logs";
    topo::set_host_launch(result.document, h);
  }
  topo::append_notes(result.document,
                     {fmt::format("linksim fit collectives: {} over all operations, per "
                                  "operation in collective_calibration ({})",
                                  describe_scales(c.all), c.source)});
}

// The machine before and after the fit, for predictions.
struct Machines {
  const topo::Topology& before;
  const topo::Router& before_router;
  const topo::Topology& after;
  const topo::Router& after_router;
};

// One row per measurement: what the machine predicted for it before and after the fit.
ReportRow report_row(const Record& r, const Machines& m, const CollectivePredictor& predictor,
                     bool collective_fitted) {
  ReportRow row;
  row.measurement = describe_endpoints(r) + (r.variant.empty() ? "" : " " + r.variant);
  row.source = source_of(r);
  row.size_bytes = r.size_bytes;
  row.measured_s = r.time_s;
  row.status = status_of(r);
  if (is_nccl(r)) {
    row.before_s = predictor.predict_time_s(m.before, r);
    row.after_s = predictor.predict_time_s(m.after, r);
    row.status = collective_fitted ? "fitted (collective)" : "reported";
  } else if (r.size_bytes > 0) {
    auto before_routes = routes_for(m.before_router, r);
    auto after_routes = routes_for(m.after_router, r);
    if (before_routes && after_routes) {
      if (row.status == "fitted" && staged_through_host(*before_routes)) {
        row.status = "reported (staged through host memory: bounds its links, fits none)";
      }
      row.before_s = predict_time_s(m.before, *before_routes, r.size_bytes);
      row.after_s = predict_time_s(m.after, *after_routes, r.size_bytes);
    } else if (row.status == "fitted" || row.status == "reported") {
      row.status = "no route in the machine";
    }
  }
  return row;
}

// What --topology takes for a cluster's "host" (a machine file beside the cluster file, else a
// shipped machine's name, as the cluster loader finds it): the shipped name when it is a
// shipped machine, else its path, else the name as the cluster writes it.
std::string host_topology_argument(const std::string& host, const std::string& cluster_file) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path beside = fs::path(cluster_file).parent_path() / host;
  const fs::path found =
      fs::exists(beside, ec) ? beside : fs::path(topo::resolve_topology_path(host));
  if (!fs::exists(found, ec)) return host;
  const std::string name = found.stem().string();
  if (fs::equivalent(found, topo::resolve_topology_path(name), ec)) return name;
  return found.lexically_normal().string();
}

// fit calibrates one machine from logs measured on it; a cluster is machines and a network,
// and its machine file has no links of its own to fit. Refused naming the host to give instead.
void refuse_cluster(const Json& document, const std::string& file) {
  if (!document.is_object() || !document.contains("cluster")) return;
  const JsonView cluster = JsonView(document, file).at("cluster");
  const auto host = cluster.get("host");
  if (!host || !host->is_string() || host->as_string().empty()) {
    cluster.fail(
        "fit calibrates one machine, not a cluster; give the machine its nodes are, "
        "and logs measured on one of them");
  }
  cluster.fail(
      fmt::format("fit calibrates one machine, not a cluster; give the cluster's host "
                  "machine, --topology {}, and logs measured on one of its nodes",
                  host_topology_argument(host->as_string(), file)));
}

}  // namespace

FitMachineResult fit_machine(const FitMachineOptions& options) {
  FitMachineResult result;
  const std::string topo_path =
      options.topology_document ? options.topology : topo::resolve_topology_path(options.topology);
  const Json given =
      options.topology_document ? *options.topology_document : read_json_file(topo_path);
  refuse_cluster(given, topo_path);
  // A machine with "base" is calibrated as the self-contained machine it stands for.
  const Json document = self_contained_document(given, topo_path);
  const topo::Topology base = topo::parse_topology(document, topo_path);
  const topo::Router base_router(base);

  ImportOptions import_options;
  import_options.expected_gpu_count = static_cast<int>(base.count(topo::NodeKind::gpu));
  CalibrationProvenance provenance;
  const std::size_t steps = options.logs.size() + 2;
  std::size_t steps_done = 0;
  const std::function<void()> step_done = [&] {
    if (options.progress) options.progress(++steps_done, steps);
  };
  import_logs(options, import_options, result, provenance, step_done);

  result.series = build_series(result.records, options.fit);
  result.overrides = derive_link_overrides(base_router, result.series);
  for (const auto& o : result.overrides) {
    const auto& l = base.link(o.link);
    result.applied.push_back({link_name(base, o.link), l.bandwidth_Bps, l.latency_s, o});
  }
  add_fit_notes(options, result);
  provenance.notes = result.notes;
  result.document = apply_link_overrides(document, topo_path, base, result.overrides, provenance);
  step_done();

  if (!result.nccl.empty()) fit_collective_model(topo_path, result);
  step_done();

  const topo::Topology after = topo::parse_topology(result.document, topo_path);
  const topo::Router after_router(after);
  const SimulatedCollectives simulated;
  const CollectivePredictor* predictor = options.collective ? options.collective : &simulated;
  std::vector<Record> ordered = result.records;
  sort_records(ordered);
  const Machines machines{base, base_router, after, after_router};
  for (const auto& r : ordered)
    result.rows.push_back(report_row(r, machines, *predictor, result.collective.has_value()));
  return result;
}

std::string describe_scales(const topo::CollectiveScales& s) {
  const auto one = [](double v, const std::optional<topo::Range>& r) {
    return r ? fmt::format("{:.3g} ({:.3g}..{:.3g})", v, r->lo, r->hi) : fmt::format("{:.3g}", v);
  };
  std::string out =
      fmt::format("NCCL latencies x {}, protocol efficiencies x {}",
                  one(s.latency, s.latency_range), one(s.bandwidth, s.bandwidth_range));
  if (s.ll != 1 || s.ll_range) out += fmt::format(", LL x {} more", one(s.ll, s.ll_range));
  if (s.ll128 != 1 || s.ll128_range) {
    out += fmt::format(", LL128 x {} more", one(s.ll128, s.ll128_range));
  }
  return out;
}

std::string serialize_document(const Json& document) {
  return document.dump(2) + "\n";
}

std::string format_fit_report(const FitMachineResult& result) {
  std::string out;
  out += "Link series (t = alpha + size/beta, weighted least squares, 95% Student-t intervals):\n";
  if (result.series.empty()) out += "  (none: no link measurements)\n";
  for (const auto& s : result.series) {
    out += fmt::format("  {:<32} {}\n", describe(s.key), describe_fit(s.fit));
  }
  out += "\nLinks overridden (basis: effective):\n";
  if (result.applied.empty()) out += "  (none)\n";
  for (const auto& a : result.applied) {
    std::string what;
    if (a.override_.bandwidth_Bps) {
      what += fmt::format("bandwidth {} -> {}", units::format_bandwidth(a.old_bandwidth_Bps),
                          units::format_bandwidth(*a.override_.bandwidth_Bps));
    }
    if (a.override_.latency_s) {
      what += fmt::format("{}latency {} -> {}", what.empty() ? "" : ", ",
                          units::format_time(a.old_latency_s),
                          units::format_time(*a.override_.latency_s));
    }
    out += fmt::format("  {:<40} {}\n", a.name, what);
  }
  out += "\nMeasurements (error = (predicted - measured) / measured time):\n";
  out += fmt::format("  {:<48} {:>10} {:>10} {:>10} {:>8} {:>10} {:>8}  {}\n", "measurement",
                     "size", "measured", "before", "error", "after", "error", "status / source");
  auto err = [](const std::optional<double>& p, double m) {
    return p && m > 0 ? fmt::format("{:+.1f}%", (*p - m) / m * 100) : std::string("-");
  };
  auto time = [](const std::optional<double>& t) {
    return t ? units::format_time(*t) : std::string("-");
  };
  for (const auto& r : result.rows) {
    out += fmt::format("  {:<48} {:>10} {:>10} {:>10} {:>8} {:>10} {:>8}  {} ({})\n", r.measurement,
                       units::format_bytes(r.size_bytes), units::format_time(r.measured_s),
                       time(r.before_s), err(r.before_s, r.measured_s), time(r.after_s),
                       err(r.after_s, r.measured_s), r.status, r.source);
  }
  if (!result.nccl.empty()) {
    out += "\nnccl-tests logs (imported and listed above):\n";
    for (const auto& n : result.nccl) {
      out += fmt::format("  {} on {} GPUs ({}): avg busbw {}", n.op, n.ranks, n.source,
                         units::format_bandwidth(n.avg_bus_bandwidth_Bps));
      if (n.descriptive) out += "; as one line: " + describe_fit(*n.descriptive);
      out += "\n";
    }
    if (result.collective) {
      const auto& c = *result.collective;
      out += fmt::format(
          "  collective model fitted through the simulator over {} sizes; median |error| "
          "{:.1f}% before, {:.1f}% after (written as \"collective_calibration\", with 95% "
          "intervals in parentheses)\n",
          c.samples, 100 * c.median_abs_error_before, 100 * c.median_abs_error_after);
      out += fmt::format("    {:<16} {}\n", "all operations", describe_scales(c.calibration.all));
      if (c.host_launch.per_gpu_s > 0) {
        out += fmt::format(
            "    {:<16} {} per GPU{} (a thread driving g GPUs starts an operation at most every "
            "g x that; written as \"host_launch\")\n",
            "host launch", units::format_time(c.host_launch.per_gpu_s),
            c.host_launch.range_s
                ? fmt::format(" ({}..{})", units::format_time(c.host_launch.range_s->lo),
                              units::format_time(c.host_launch.range_s->hi))
                : std::string());
      } else {
        out += fmt::format("    {:<16} not identified: no logged size is launch-bound\n",
                           "host launch");
      }
      for (const auto& [op, sc] : c.calibration.by_op)
        out += fmt::format("    {:<16} {}\n", to_string(op), describe_scales(sc));
    } else {
      out += "  no nccl-tests size could be predicted on this machine; nothing was fitted\n";
    }
  }
  return out;
}

}  // namespace linksim::calibrate
