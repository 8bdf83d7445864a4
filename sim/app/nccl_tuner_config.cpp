#include "sim/app/nccl_tuner_config.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "sim/app/machine.hpp"
#include "sim/app/nccl_tuner_ranges.hpp"
#include "sim/coll/collective_sim.hpp"
#include "sim/coll/communicator.hpp"
#include "sim/coll/nccl_tuner_model.hpp"
#include "sim/coll/sweep.hpp"
#include "sim/core/error.hpp"
#include "sim/core/nccl_version.hpp"
#include "sim/core/parallel_cases.hpp"
#include "sim/core/units.hpp"

namespace linksim::app {
namespace {

void check_options(const NcclTunerOptions& o) {
  if (!(std::isfinite(o.margin_percent) && o.margin_percent >= 0)) {
    throw InputError("", "--margin",
                     fmt::format("expected a percentage of at least 0, got {}", o.margin_percent));
  }
  if (o.min_bytes < 1) throw InputError("", "--min-bytes", "expected at least 1 byte");
  if (o.max_bytes > static_cast<std::uint64_t>(coll::kMaxSweepBytes)) {
    throw InputError("", "--max-bytes",
                     fmt::format("{} bytes is above the 64 GiB a tuning may reach", o.max_bytes));
  }
  if (o.min_bytes > o.max_bytes) {
    throw InputError(
        "", "--min-bytes",
        fmt::format("{} bytes exceeds --max-bytes, {} bytes", o.min_bytes, o.max_bytes));
  }
  if (o.ranks < 0) throw InputError("", "--np", "expected at least 1 rank");
}

// The sizes simulated: min, 2 min, ... while at most max.
std::vector<std::uint64_t> tuned_sizes(const NcclTunerOptions& o) {
  std::vector<std::uint64_t> out;
  for (std::uint64_t s = o.min_bytes; s <= o.max_bytes; s *= 2)
    out.push_back(s);
  return out;
}

// Whether the plugin can be told to run `c` (it has names for every protocol, not every
// algorithm).
bool writable(const coll::Choice& c) {
  return report::nccl_tuner_algorithm_name(c.algorithm).has_value();
}

NcclTunerCase tune_case(const coll::Communicator& comm, coll::Op op, std::uint64_t size_bytes,
                        const NcclTunerOptions& o) {
  NcclTunerCase out;
  out.op = op;
  out.size_bytes = size_bytes;
  coll::Request request;
  request.op = op;
  request.size_bytes = static_cast<double>(size_bytes);
  const auto candidates = coll::candidate_choices(comm, request);
  if (candidates.empty()) return out;
  // NCCL's pick is what it runs with no plugin; linksim's is the fastest candidate simulated
  // (simulate_collective skips those that provably cannot win, so it equals simulating all).
  // The example tuner this file is for replaces the network plugin's (aws-ofi-nccl's regions),
  // so a size without a row gets NCCL's model's pick: that is the one to compare with.
  const auto pick = coll::nccl_tuner_pick(comm, request, candidates, false);
  coll::Request every = request;
  every.simulate_every_candidate = true;
  const coll::Outcome best = coll::simulate_collective(comm, every);
  out.best = best.choice;
  out.best_s = best.time_s;
  if (!pick) return out;
  out.nccl = pick->choice;
  out.nccl_s = same_choice(*out.nccl, best.choice)
                   ? best.time_s
                   : coll::simulate_choice(comm, request, *out.nccl).time_s;
  const bool clearly_faster = out.nccl_s > out.best_s * (1 + o.margin_percent / 100);
  if (!same_choice(*out.nccl, out.best) && clearly_faster && writable(out.best)) {
    out.written = out.best;
    out.overrides = true;
  } else if (o.all_sizes && writable(*out.nccl)) {
    out.written = out.nccl;
  }
  return out;
}

std::string choice_text(const coll::Choice& c) {
  return fmt::format("{}/{}/{}ch", report::nccl_tuner_algorithm_name(c.algorithm).value_or("?"),
                     report::nccl_tuner_protocol_name(c.protocol), c.channels);
}

// The comment above a row: what NCCL picks over the range, and how much faster linksim
// predicts the row is.
std::string row_comment(const std::vector<NcclTunerCase>& cases, const TunedRange& r) {
  const NcclTunerCase& first = cases[r.first];
  const std::string range =
      fmt::format("{} {} to {}:", report::nccl_tuner_collective_name(first.op).value_or("?"),
                  units::format_bytes_binary(static_cast<double>(r.min_bytes)),
                  units::format_bytes_binary(static_cast<double>(r.max_bytes) + 1));
  if (!first.overrides) return fmt::format("{} NCCL's own pick, kept", range);
  std::vector<std::string> picks;
  double low = 0;
  double high = 0;
  for (std::size_t i = r.first; i <= r.last; ++i) {
    const std::string p = choice_text(*cases[i].nccl);
    if (std::find(picks.begin(), picks.end(), p) == picks.end()) picks.push_back(p);
    const double gain = cases[i].nccl_s / cases[i].best_s;
    low = i == r.first ? gain : std::min(low, gain);
    high = i == r.first ? gain : std::max(high, gain);
  }
  const std::string gains = fmt::format("{:.2f}", low) == fmt::format("{:.2f}", high)
                                ? fmt::format("{:.2f}x", low)
                                : fmt::format("{:.2f}x to {:.2f}x", low, high);
  return fmt::format("{} NCCL picks {}; linksim predicts this {} as fast", range,
                     fmt::join(picks, ", then "), gains);
}

std::vector<std::string> header(const NcclTunerOptions& o, const NcclTunerResult& r,
                                std::size_t overridden, std::size_t uncovered) {
  std::vector<std::string> h;
  h.push_back(
      "NCCL tuner configuration for NCCL's example tuner plugin (NVIDIA/nccl "
      "plugins/tuner/example), written by linksim tune; NCCL_TUNER_CONFIG_FILE names it "
      "(linksim's docs/tune.md).");
  h.push_back(fmt::format("Machine: {} ({}): {} node{}, {} ranks, one per GPU.", r.machine_name,
                          r.machine_title, r.nodes, r.nodes == 1 ? "" : "s", r.ranks));
  h.push_back(fmt::format(
      "NCCL modelled: {}. A row is linksim's fastest choice, every candidate simulated, where "
      "NCCL's cost model picks another and linksim predicts NCCL's pick takes more than {:g}% "
      "longer; channels: NCCL's count for the row's choice.",
      nccl_version_text(kModelledNcclVersion), o.margin_percent));
  h.push_back(fmt::format(
      "Sizes are NCCL's nBytes (all-gather and reduce-scatter: the whole gathered buffer), "
      "simulated from {} to {} in powers of two; a size S stands for S to 2S-1 bytes.",
      units::format_bytes_binary(static_cast<double>(o.min_bytes)),
      units::format_bytes_binary(static_cast<double>(tuned_sizes(o).back()))));
  h.push_back(fmt::format("{} of {} operation sizes overridden{}.", overridden, r.cases.size(),
                          uncovered > 0 ? fmt::format("; {} not covered by NCCL's cost model, "
                                                      "left alone",
                                                      uncovered)
                                        : ""));
  h.push_back(o.all_sizes
                  ? "Every other size has NCCL's own pick, with its channel count: the example "
                    "plugin runs what no row matches on 1 channel."
                  : "Other sizes keep NCCL's pick, but the example plugin runs what no row "
                    "matches on 1 channel; linksim tune --all-sizes writes NCCL's pick for them.");
  return h;
}

}  // namespace

std::vector<coll::Op> nccl_tuner_ops() {
  return {coll::Op::all_reduce, coll::Op::all_gather, coll::Op::reduce_scatter, coll::Op::broadcast,
          coll::Op::reduce};
}

NcclTunerResult tune_nccl(const NcclTunerOptions& options) {
  check_options(options);
  const topo::Topology machine = load_machine(options.machine, options.nodes);
  auto gpus = machine.nodes_of(topo::NodeKind::gpu);
  const int ranks = options.ranks == 0 ? static_cast<int>(gpus.size()) : options.ranks;
  if (ranks > static_cast<int>(gpus.size())) {
    throw InputError("", "--np",
                     fmt::format("{} ranks, but {} has {} GPUs (--nodes N runs it on N nodes)",
                                 ranks, machine.name, gpus.size()));
  }
  // mpirun fills each host's slots in turn: the ranks are the machine's first GPUs.
  gpus.resize(static_cast<std::size_t>(ranks));
  const coll::Communicator comm(machine, gpus);
  NcclTunerResult result;
  result.machine_name = machine.name;
  result.machine_title = machine.title;
  result.nodes = comm.node_count();
  result.ranks = comm.size();

  const std::vector<coll::Op> ops = nccl_tuner_ops();
  const std::vector<std::uint64_t> sizes = tuned_sizes(options);
  result.cases.resize(ops.size() * sizes.size());
  // Each case writes its own slot, so the result is the same on any number of threads.
  CaseProgress progress;
  if (options.progress) {
    progress.finished = [&](std::size_t done) { options.progress(done, result.cases.size()); };
  }
  run_cases(
      result.cases.size(), options.threads,
      [&](std::size_t i) {
        result.cases[i] = tune_case(comm, ops[i / sizes.size()], sizes[i % sizes.size()], options);
      },
      progress);

  std::size_t overridden = 0;
  std::size_t uncovered = 0;
  for (std::size_t k = 0; k < ops.size(); ++k) {
    const std::vector<NcclTunerCase> of_op(
        result.cases.begin() + static_cast<std::ptrdiff_t>(k * sizes.size()),
        result.cases.begin() + static_cast<std::ptrdiff_t>((k + 1) * sizes.size()));
    // Overrides and NCCL's own picks (all_sizes) merge apart, as their comments differ; each
    // sample keeps its size, so a range still ends where the next sample starts.
    std::vector<TunedSize> overrides;
    std::vector<TunedSize> kept;
    for (const auto& c : of_op) {
      overridden += c.overrides ? 1 : 0;
      uncovered += c.nccl ? 0 : 1;
      overrides.push_back({c.size_bytes, c.overrides ? c.written : std::nullopt});
      kept.push_back({c.size_bytes, c.overrides ? std::nullopt : c.written});
    }
    std::vector<TunedRange> ranges = merge_tuned_sizes(overrides);
    for (const TunedRange& r : merge_tuned_sizes(kept))
      ranges.push_back(r);
    std::sort(ranges.begin(), ranges.end(),
              [](const TunedRange& a, const TunedRange& b) { return a.first < b.first; });
    for (const TunedRange& r : ranges) {
      result.lines.push_back({ops[k],
                              r.min_bytes,
                              r.max_bytes,
                              r.choice.algorithm,
                              r.choice.protocol,
                              r.choice.channels,
                              result.nodes,
                              result.ranks,
                              {row_comment(of_op, r)}});
    }
  }
  result.text = report::format_nccl_tuner_config(header(options, result, overridden, uncovered),
                                                 result.lines);
  return result;
}

}  // namespace linksim::app
