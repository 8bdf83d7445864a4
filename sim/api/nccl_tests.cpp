// linksim::simulate_nccl_tests (include/linksim/nccl_tests.hpp): sim/app's nccl-tests run with
// its rows in the printed columns' units. Nothing here computes a figure.
#include <linksim/nccl_tests.hpp>

#include "sim/api/option_checks.hpp"
#include "sim/app/nccl_tests_run.hpp"
#include "sim/topo/cluster_builder.hpp"

namespace linksim {
namespace {

// As nccl-tests prints a row: time in us (the -C column when -C asks for CPU time), algbw and
// busbw in GB/s.
NcclTestsRow printed_row(const coll::SweepRow& row, bool report_cputime) {
  const coll::Outcome& out = row.outcome;
  const coll::Outcome& in = row.in_place_outcome();
  NcclTestsRow r;
  r.size_bytes = static_cast<std::uint64_t>(row.size_bytes);
  r.count = static_cast<std::uint64_t>(row.count);
  r.type = row.type;
  r.redop = row.redop;
  r.root = row.root;
  r.time_us = (report_cputime ? row.cpu_time_s : out.time_s) * 1e6;
  r.algbw_GBps = out.algbw_Bps / 1e9;
  r.busbw_GBps = out.busbw_Bps / 1e9;
  r.in_place_time_us = (report_cputime ? row.cpu_time_s : in.time_s) * 1e6;
  r.in_place_algbw_GBps = in.algbw_Bps / 1e9;
  r.in_place_busbw_GBps = in.busbw_Bps / 1e9;
  return r;
}

}  // namespace

NcclTestsResult simulate_nccl_tests(const NcclTestsOptions& options) {
  api::check_given("NcclTestsOptions::binary", options.binary, "all_reduce_perf");
  api::check_given("NcclTestsOptions::machine", options.machine, "dgx-a100");
  api::check_count("NcclTestsOptions::nodes", options.nodes, 0, "as the file says", 1,
                   topo::kMaxClusterHosts);
  api::check_count("NcclTestsOptions::processes", options.processes, 1, "one process", 1, 1 << 30);
  api::check_count("NcclTestsOptions::threads", options.threads, 0, "one per core", 1, 1024);

  const app::NcclTestsInvocation invocation =
      app::parse_nccl_tests_invocation(options.binary, options.arguments);
  NcclTestsResult result;
  if (invocation.help) {
    result.printout = app::nccl_tests_help(invocation);
    return result;
  }
  app::NcclTestsOptions run;
  run.machine = options.machine;
  run.nodes = options.nodes;
  run.processes = options.processes;
  run.environment = options.environment;
  run.algo = options.algo;
  run.proto = options.proto;
  run.nccl_version = options.nccl_version;
  run.threads = options.threads;
  // -J FILE: where nccl-tests would write (a name ending in .json in a writable folder, never
  // over an existing file), named in the printout as nccl-tests names it; the caller writes.
  const app::NcclTestsJsonDestination json = app::nccl_tests_json_destination(
      invocation.settings.output_file, /*overwrite=*/false, invocation.settings.output_file_given);
  app::NcclTestsResult simulated = app::simulate_nccl_tests(run, invocation, json.path);
  const bool report_cputime = invocation.settings.report_cputime != 0;
  result.rows.reserve(simulated.rows.size());
  for (const auto& row : simulated.rows)
    result.rows.push_back(printed_row(row, report_cputime));
  result.printout = json.printed_line + simulated.printout;
  result.notes = json.note + simulated.notes;
  result.json = std::move(simulated.json);
  result.json_path = json.path;
  result.machine = std::move(simulated.machine_name);
  result.ranks = simulated.ranks;
  result.bandwidth_check_failed = simulated.bandwidth_check_failed;
  return result;
}

}  // namespace linksim
