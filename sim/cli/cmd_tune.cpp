// `linksim tune --topology MACHINE [--nodes N] [--np N] [--margin PCT] -o nccl_tuner.conf`: the
// CSV file NCCL's example tuner plugin reads through NCCL_TUNER_CONFIG_FILE, with linksim's
// choice of algorithm, protocol and channels where it predicts NCCL's own pick is clearly slower
// (sim/app/nccl_tuner_config.hpp does the work; docs/tune.md says how to load it).
#include <fmt/format.h>

#include <cmath>
#include <cstdint>

#include "sim/app/nccl_tuner_config.hpp"
#include "sim/cli/command_outputs.hpp"
#include "sim/cli/commands.hpp"
#include "sim/cli/jobs_option.hpp"
#include "sim/cli/machine_option.hpp"
#include "sim/cli/progress.hpp"
#include "sim/cli/whole_number_range.hpp"
#include "sim/coll/sweep.hpp"
#include "sim/core/error.hpp"

namespace linksim::cli {
namespace {

struct TuneArgs {
  app::NcclTunerOptions options;
  std::string min_size = "8";
  std::string max_size = "16G";
  std::string output;
  bool force = false;
};

// A size as nccl-tests' -b and -e read it ("8", "64K", "16G": powers of 1024), a whole number
// of bytes of at least 1.
std::uint64_t size_option(const std::string& text, const std::string& flag) {
  const auto bytes = coll::parse_nccl_size(text);
  if (!bytes || *bytes < 1 || *bytes != std::floor(*bytes) || *bytes > coll::kMaxSweepBytes) {
    throw InputError("", flag,
                     fmt::format("expected a whole number of bytes from 1 to 64G, as 8, 64K or "
                                 "16G, not \"{}\"",
                                 text));
  }
  return static_cast<std::uint64_t>(*bytes);
}

}  // namespace

void register_tune(CLI::App& app) {
  auto a = std::make_shared<TuneArgs>();
  auto* cmd = app.add_subcommand(
      "tune",
      "Write the CSV file NCCL's example tuner plugin reads (NCCL_TUNER_CONFIG_FILE): linksim's "
      "algorithm, protocol and channels per operation and size range, where it predicts NCCL's "
      "own pick is slower by more than --margin: linksim tune -t dgx-h100 --nodes 2 -o "
      "nccl_tuner.conf");
  cmd->add_option("-t,--topology", a->options.machine, "Machine: a topology file or shipped name")
      ->required();
  add_nodes_option(cmd, a->options.nodes);
  cmd->add_option("--np", a->options.ranks,
                  "Ranks, one per GPU, as mpirun -np gives them: the machine's first N GPUs "
                  "(default: every GPU)")
      ->check(whole_number_range(1, 1 << 20));
  cmd->add_option("--margin", a->options.margin_percent,
                  "Write a row only where NCCL's pick is predicted more than this many percent "
                  "slower (default 5)")
      ->check(CLI::Range(0.0, 1e6));
  cmd->add_option("--min-bytes", a->min_size,
                  "Smallest size simulated, as nccl-tests' -b reads it (default 8)");
  cmd->add_option("--max-bytes", a->max_size,
                  "Largest size: sizes double from --min-bytes up to it (default 16G)");
  cmd->add_flag("--all-sizes", a->options.all_sizes,
                "Also write NCCL's own pick, with its channel count, for the other sizes (the "
                "example plugin runs what no row matches on 1 channel)");
  cmd->add_option("-o,--output", a->output, "Write the file here (- or none: stdout)")
      ->check(output_file_name());
  cmd->add_flag("--force", a->force, "Overwrite the output file");
  add_jobs_option(cmd, a->options.threads, "Operation sizes");
  add_quiet_flag(cmd);
  cmd->callback([a] {
    CommandOutputs outputs(a->force);
    outputs.claim(a->output);
    app::NcclTunerOptions options = a->options;
    options.min_bytes = size_option(a->min_size, "--min-bytes");
    options.max_bytes = size_option(a->max_size, "--max-bytes");
    Progress progress("tune", "operation sizes", 0);
    options.progress = progress.callback();
    const app::NcclTunerResult result = app::tune_nccl(options);
    progress.finish();
    outputs.put(a->output, result.text);
    outputs.write();
  });
}

}  // namespace linksim::cli
