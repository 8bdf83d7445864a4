// `linksim accuracy`: predicted against measured nccl-tests busbw on the reference machines
// (validate/accuracy.hpp), as Markdown (docs/ACCURACY.md), and with --plot one picture per
// machine of both against size.
#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "sim/cli/command_outputs.hpp"
#include "sim/cli/commands.hpp"
#include "sim/cli/gnuplot.hpp"
#include "sim/report/plot.hpp"
#include "validate/accuracy.hpp"
#include "validate/accuracy_data.hpp"
#include "validate/accuracy_report.hpp"

namespace linksim::cli {
namespace {

// A set's rows as plot series: measured and predicted busbw per operation.
std::vector<report::BusbwSeries> series_of(const validate::AccuracySet& set) {
  std::vector<report::BusbwSeries> out;
  auto series_for = [&](const std::string& label) -> report::BusbwSeries& {
    for (auto& s : out)
      if (s.label == label) return s;
    out.push_back({label, {}});
    return out.back();
  };
  for (const auto& r : set.rows) {
    const std::string op(coll::to_string(r.op));
    coll::SweepRow measured;
    measured.size_bytes = r.size_bytes;
    measured.outcome.busbw_Bps = r.measured_busbw_Bps;
    series_for(op + " measured").rows.push_back(measured);
    coll::SweepRow predicted = measured;
    predicted.outcome.busbw_Bps = r.predicted_busbw_Bps;
    series_for(op + " predicted").rows.push_back(predicted);
  }
  return out;
}

}  // namespace

void register_accuracy(CLI::App& app) {
  auto reference = std::make_shared<std::string>(validate::default_measurements_path());
  auto output = std::make_shared<std::string>();
  auto plot_dir = std::make_shared<std::string>();
  auto force = std::make_shared<bool>(false);
  auto format = std::make_shared<std::string>("markdown");
  auto* cmd = app.add_subcommand(
      "accuracy", "Predicted against measured nccl-tests busbw on the reference machines");
  cmd->add_option("--reference", *reference, "measurements.json with the reference runs");
  cmd->add_option("-o,--output", *output, "Write the report here (default: stdout)")
      ->check(output_file_name());
  cmd->add_option("--format", *format,
                  "markdown (docs/ACCURACY.md), json or csv (every row, in SI units)")
      ->check(CLI::IsMember({"markdown", "json", "csv"}));
  cmd->add_option("--plot", *plot_dir,
                  "Also draw, into this existing folder, one PNG per machine with a sweep "
                  "(<machine>.png): measured and predicted busbw against size (gnuplot)")
      ->check(output_file_name());
  cmd->add_flag("--force", *force, "Overwrite the output file and the pictures");
  cmd->callback([=] {
    CommandOutputs outputs(*force);
    outputs.claim(*output);
    const auto sets = validate::evaluate_accuracy(validate::load_nccl_tests_records(*reference));
    std::vector<std::pair<std::string, const validate::AccuracySet*>> pictures;
    if (!plot_dir->empty()) {
      for (const auto& s : sets) {
        if (s.rows.size() < 3) continue;  // statements and excerpts, not sweeps
        pictures.emplace_back(*plot_dir + "/" + s.topology + ".png", &s);
        outputs.claim_picture(pictures.back().first);
      }
    }
    outputs.put(*output, *format == "json"  ? validate::accuracy_json(sets)
                         : *format == "csv" ? validate::accuracy_csv(sets)
                                            : validate::format_accuracy_markdown(sets));
    for (const auto& [path, set] : pictures) {
      outputs.put(path, render_plot(report::busbw_plot_script(set->name, series_of(*set)), path));
    }
    outputs.write();
  });
}

}  // namespace linksim::cli
