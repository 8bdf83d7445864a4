#include "sim/app/sweep_point.hpp"

#include <fmt/format.h>

#include "sim/app/machine.hpp"
#include "sim/app/nccl_tests_run.hpp"
#include "sim/app/scenario_run.hpp"
#include "sim/core/csv.hpp"
#include "sim/core/units.hpp"
#include "sim/report/job_report.hpp"
#include "sim/work/job_result.hpp"

namespace linksim::app {
namespace {

// The figures an nccl-tests row adds after the dimensions: the out-of-place columns.
constexpr const char* kNcclTestsColumns =
    "size_bytes,count,type,redop,time_us,algbw_GBps,busbw_GBps";

// A dimension's value as a CSV field: a name as written (quoted where RFC 4180 needs it), a
// number or a boolean as JSON writes it.
std::string csv_value(const Json& v) {
  return v.is_string() ? csv_field(v.get<std::string>()) : v.dump();
}

std::string dimension_fields(const std::vector<const Json*>& values) {
  std::string out;
  for (const Json* v : values)
    out += csv_value(*v) + ",";
  return out;
}

// The dimensions as a JSON object, in the grid's order.
Json dimension_object(const SweepGrid& grid, const std::vector<const Json*>& values) {
  Json out = Json::object();
  for (std::size_t k = 0; k < values.size(); ++k)
    out[grid.dimensions[k].key] = *values[k];
  return out;
}

// `linksim run --format csv`'s columns after "scenario,machine," (the grid names both).
std::string job_columns_line(const std::string& jobs_csv_line) {
  std::size_t at = 0;
  for (int commas = 0; commas < 2; ++commas)
    at = jobs_csv_line.find(',', at) + 1;
  return jobs_csv_line.substr(at);
}

// "scenario=llama3-8b, machine=dgx-h100, tensor=2": which point, for an error message.
std::string point_text(const SweepGrid& grid, const std::vector<const Json*>& values) {
  std::string out;
  for (std::size_t k = 0; k < values.size(); ++k) {
    out += fmt::format("{}{}={}", k ? ", " : "", grid.dimensions[k].key,
                       values[k]->is_string() ? values[k]->get<std::string>() : values[k]->dump());
  }
  return out;
}

int integer_or(const SweepGrid& grid, const std::vector<const Json*>& values,
               const std::string& key, int fallback) {
  for (std::size_t k = 0; k < values.size(); ++k) {
    if (grid.dimensions[k].key == key) return values[k]->get<int>();
  }
  return fallback;
}

const Json* value_of(const SweepGrid& grid, const std::vector<const Json*>& values,
                     const std::string& key) {
  for (std::size_t k = 0; k < values.size(); ++k) {
    if (grid.dimensions[k].key == key) return values[k];
  }
  return nullptr;
}

// The point's plan fields over the scenario's own plan (sweep_plan_keys, values checked by the
// grid's loader).
void apply_plan(const SweepGrid& grid, const std::vector<const Json*>& values,
                work::ParallelPlan& plan) {
  for (std::size_t k = 0; k < values.size(); ++k) {
    const std::string& key = grid.dimensions[k].key;
    const Json& v = *values[k];
    if (key == "data") {
      plan.data_fills = v.is_string();  // "fill"
      if (!plan.data_fills) plan.data = v.get<int>();
    } else if (key == "tensor") {
      plan.tensor = v.get<int>();
    } else if (key == "pipeline") {
      plan.pipeline = v.get<int>();
    } else if (key == "expert") {
      plan.expert = v.get<int>();
    } else if (key == "zero_stage") {
      plan.zero_stage = v.get<int>();
    } else if (key == "shard_group") {
      plan.shard_group = v.get<int>();
    } else if (key == "micro_batches") {
      plan.micro_batches = v.get<int>();
    } else if (key == "sequence_parallel") {
      plan.sequence_parallel = v.get<bool>();
    } else if (key == "prefetch_depth") {
      plan.prefetch_depth = v.get<int>();
    }
  }
}

std::string scenario_row(const SweepGrid& grid, const std::vector<const Json*>& values,
                         SweepFormat format) {
  ScenarioRunOptions options;
  options.scenario = value_of(grid, values, "scenario")->get<std::string>();
  options.machines = {value_of(grid, values, "machine")->get<std::string>()};
  options.nodes = integer_or(grid, values, "nodes", 0);
  options.threads = 1;  // the sweep's points are its unit of parallelism
  options.adjust_scenario = [&](work::Scenario& s) { apply_plan(grid, values, s.plan); };
  ScenarioRuns runs;
  try {
    runs = run_scenario(options);
  } catch (const work::DoesNotFit& e) {
    // One machine too small is a finding, as in `linksim compare`: a row, not a failure.
    runs.scenario = work::load_scenario(options.scenario);
    apply_plan(grid, values, runs.scenario.plan);
    const topo::Topology machine = load_machine(options.machines.front(), options.nodes);
    work::JobResult r;
    r.machine = machine.name;
    r.machine_title = machine.title;
    r.gpus = static_cast<int>(machine.count(topo::NodeKind::gpu));
    r.failure = e.message();
    runs.jobs = {std::move(r)};
  }
  const work::JobResult& job = runs.jobs.front();
  if (format == SweepFormat::json) {
    Json row = dimension_object(grid, values);
    row["report"] = report::job_json(job, runs.scenario);
    return row.dump();
  }
  const std::string csv = report::jobs_csv({job}, runs.scenario);
  const std::string line = csv.substr(csv.find('\n') + 1);  // after the header
  return dimension_fields(values) + job_columns_line(line);
}

std::string nccl_tests_row(const SweepGrid& grid, const std::vector<const Json*>& values,
                           SweepFormat format) {
  const Json& size = *value_of(grid, values, "size");
  const std::string size_arg =
      size.is_string() ? size.get<std::string>() : std::to_string(size.get<std::int64_t>());
  std::vector<std::string> arguments = grid.arguments;
  arguments.insert(arguments.end(), {"-b", size_arg, "-e", size_arg});
  const NcclTestsInvocation invocation = parse_nccl_tests_invocation(grid.binary, arguments);
  NcclTestsOptions options;
  options.machine = value_of(grid, values, "machine")->get<std::string>();
  options.nodes = integer_or(grid, values, "nodes", 0);
  options.processes = integer_or(grid, values, "np", 1);
  options.environment = grid.environment;
  options.threads = 1;
  const NcclTestsResult result = simulate_nccl_tests(options, invocation, "");
  const coll::SweepRow& r = result.rows.front();  // -b S -e S: one size
  const double time_us = r.outcome.time_s * 1e6;
  const double algbw_GBps = r.outcome.algbw_Bps / 1e9;  // nccl-tests' GB/s: 1e9 bytes
  const double busbw_GBps = r.outcome.busbw_Bps / 1e9;
  if (format == SweepFormat::json) {
    Json row = dimension_object(grid, values);
    row["size_bytes"] = r.size_bytes;
    row["count"] = r.count;
    row["type"] = r.type;
    row["redop"] = r.redop;
    row["time_us"] = time_us;
    row["algbw_GBps"] = algbw_GBps;
    row["busbw_GBps"] = busbw_GBps;
    return row.dump();
  }
  return dimension_fields(values) +
         fmt::format("{},{},{},{},{},{},{}\n", units::exact(r.size_bytes), r.count,
                     csv_field(r.type), csv_field(r.redop), units::exact(time_us),
                     units::exact(algbw_GBps), units::exact(busbw_GBps));
}

}  // namespace

std::string sweep_csv_header(const SweepGrid& grid) {
  std::string out;
  for (const auto& d : grid.dimensions)
    out += d.key + ",";
  if (grid.kind == SweepKind::nccl_tests) return out + kNcclTestsColumns + "\n";
  const std::string csv = report::jobs_csv({}, work::Scenario{});
  return out + job_columns_line(csv);
}

std::string sweep_row(const SweepGrid& grid, std::size_t index, SweepFormat format) {
  const std::vector<const Json*> values = grid.point(index);
  try {
    return grid.kind == SweepKind::nccl_tests ? nccl_tests_row(grid, values, format)
                                              : scenario_row(grid, values, format);
  } catch (const InputError& e) {
    throw SweepPointFailed(index, grid.file,
                           fmt::format("/grid (point {}: {})", index, point_text(grid, values)),
                           e.what());
  }
}

}  // namespace linksim::app
