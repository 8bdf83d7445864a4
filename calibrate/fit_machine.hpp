#pragma once
// `linksim fit`: import logs, fit each link series, write the fitted figures into a copy of the
// machine, and compare every measurement with what the machine predicted before and after.
// The CLI only parses arguments, writes the document and prints format_fit_report().

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "calibrate/collective_fit.hpp"
#include "calibrate/collective_hook.hpp"
#include "calibrate/fit_alpha_beta.hpp"
#include "calibrate/import_options.hpp"
#include "calibrate/link_overrides.hpp"
#include "calibrate/record.hpp"
#include "calibrate/series.hpp"
#include "sim/core/json_view.hpp"

namespace linksim::calibrate {

enum class LogFormat { nccl_tests, p2p_matrix, bandwidth_test, nvbandwidth };
std::string_view to_string(LogFormat format);

struct LogInput {
  LogFormat format = LogFormat::nccl_tests;
  std::string path;
};

// Reads one log with the importer for its format.
std::vector<Record> import_log(const LogInput& log, const ImportOptions& options);

struct FitMachineOptions {
  std::string topology;  // file or shipped name
  // When set, the machine document itself (e.g. one built from a probe's discovery); `topology`
  // then only names it in messages.
  std::optional<Json> topology_document;
  std::vector<LogInput> logs;
  // Recorded in the notes as given ("2025-01-31"); empty: "date not recorded". Never taken from
  // the clock here, so the same inputs give the same bytes.
  std::string date;
  // Extra records (from a probe run) fitted alongside the logs; source_file names them.
  std::vector<Record> extra_records;
  const CollectivePredictor* collective = nullptr;  // see collective_hook.hpp
  FitOptions fit;
  // Called with (steps done, steps in all) as the fit goes: one step per log, then the links,
  // then the collectives. For a progress display; prints nothing.
  std::function<void(std::size_t done, std::size_t total)> progress;
};

struct ReportRow {
  std::string measurement;  // describe_endpoints + variant
  std::string source;       // file:line
  double size_bytes = 0;
  double measured_s = 0;
  std::optional<double> before_s;
  std::optional<double> after_s;
  std::string status;  // "fitted", "fitted (collective)", "reported", why no prediction
};

struct NcclSummary {
  std::string op;
  std::string source;
  int ranks = 0;
  double avg_bus_bandwidth_Bps = 0;
  // Descriptive fit of the out-of-place time over sizes (what the sweep looks like as one
  // alpha + s/beta); not applied to the machine.
  std::optional<AlphaBetaFit> descriptive;
};

struct AppliedLink {
  std::string name;  // "gpu0 <-> plx0 (PCIe 3.0 x16)"
  double old_bandwidth_Bps = 0;
  double old_latency_s = 0;
  LinkOverride override_;
};

struct FitMachineResult {
  Json document;  // the calibrated machine
  std::vector<Record> records;
  std::vector<Series> series;
  std::vector<LinkOverride> overrides;
  std::vector<AppliedLink> applied;  // parallel to overrides
  std::vector<ReportRow> rows;
  std::vector<NcclSummary> nccl;
  // The collective model's corrections fitted from the nccl-tests logs, if any.
  std::optional<CollectiveFit> collective;
  std::vector<std::string> notes;  // also written into the document
};

FitMachineResult fit_machine(const FitMachineOptions& options);

// The document as written: 2-space indented JSON and a final newline.
std::string serialize_document(const Json& document);
// "NCCL latencies x 2.9 (2.5..3.3), protocol efficiencies x 0.81 (0.78..0.84)".
std::string describe_scales(const topo::CollectiveScales& scales);
// Human-readable report: series fits with intervals, overridden links, then one row per
// measurement with its error before and after, then the nccl-tests part.
std::string format_fit_report(const FitMachineResult& result);

}  // namespace linksim::calibrate
