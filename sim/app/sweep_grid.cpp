#include "sim/app/sweep_grid.hpp"

#include <fmt/format.h>

#include <limits>

#include "sim/app/machine.hpp"
#include "sim/app/nccl_tests_run.hpp"
#include "sim/core/error.hpp"
#include "sim/core/schema_check.hpp"
#include "sim/work/scenario.hpp"

namespace linksim::app {
namespace {

bool is_plan_key(const std::string& key) {
  for (const auto& k : sweep_plan_keys())
    if (k == key) return true;
  return false;
}

// One value of dimension `key`, checked for its kind (the schema says the same; these checks
// come first for their more precise words).
void check_value(const std::string& key, const JsonView& v) {
  const Json& raw = v.raw();
  const bool positive = raw.is_number_integer() && raw.get<std::int64_t>() >= 1;
  if (key == "scenario" || key == "machine") {
    if (!raw.is_string() || raw.get<std::string>().empty()) {
      v.fail(fmt::format("expected the name or path of a {} (a non-empty string)", key));
    }
  } else if (key == "data") {
    if (!positive && !(raw.is_string() && raw.get<std::string>() == "fill")) {
      v.fail("expected a data-parallel degree (a positive integer) or \"fill\"");
    }
  } else if (key == "zero_stage") {
    if (!raw.is_number_integer() || raw.get<std::int64_t>() < 0 || raw.get<std::int64_t>() > 3) {
      v.fail("expected a ZeRO stage from 0 to 3");
    }
  } else if (key == "sequence_parallel") {
    if (!raw.is_boolean()) v.fail("expected true or false");
  } else if (key == "size") {
    if (!positive && !(raw.is_string() && !raw.get<std::string>().empty())) {
      v.fail("expected a size as nccl-tests' -b takes it (a positive integer, or \"1M\")");
    }
  } else if (!positive) {
    v.fail("expected a positive integer");
  }
}

SweepDimension read_dimension(const std::string& key, const JsonView& values) {
  if (!values.is_array()) values.fail("expected an array of values");
  SweepDimension d{key, {}};
  for (const auto& v : values.elements()) {
    check_value(key, v);
    for (const auto& seen : d.values) {
      if (seen == v.raw()) v.fail(fmt::format("value {} is listed twice", v.raw().dump()));
    }
    d.values.push_back(v.raw());
  }
  if (d.values.empty())
    values.fail("expected at least one value; an empty dimension has no points");
  return d;
}

// `run`'s error for a name the grid gives, at the grid's location, with the cause's own words.
[[noreturn]] void fail_at(const JsonView& where, const InputError& e) {
  where.fail(e.what());
}

std::string size_text(const Json& size) {
  return size.is_string() ? size.get<std::string>() : std::to_string(size.get<std::int64_t>());
}

void check_scenarios(const SweepGrid& grid, const JsonView& dimension) {
  bool plan_varies = false;
  for (const auto& d : grid.dimensions)
    plan_varies = plan_varies || is_plan_key(d.key);
  for (const auto& v : dimension.elements()) {
    work::Scenario scenario;
    try {
      scenario = work::load_scenario(v.as_string());
    } catch (const InputError& e) {
      fail_at(v, e);
    }
    if (!scenario.gradient_sync && scenario.job.kind == work::JobKind::serving) {
      v.fail(
          fmt::format("{} is a serving scenario; a sweep runs training, prefill, decode and "
                      "gradient_sync scenarios (use linksim run for serving)",
                      scenario.name));
    }
    if (scenario.gradient_sync && plan_varies) {
      v.fail(
          fmt::format("{} is a gradient_sync scenario, which has no plan to vary", scenario.name));
    }
  }
}

void check_machines(const JsonView& dimension) {
  for (const auto& v : dimension.elements()) {
    try {
      (void)load_machine(v.as_string(), 0);
    } catch (const InputError& e) {
      fail_at(v, e);
    }
  }
}

// Every size's invocation parses, so a bad size or argument stops the sweep before it runs.
void check_nccl_tests(const SweepGrid& grid, const JsonView& root, const JsonView& sizes) {
  const JsonView nccl = root.at("nccl_tests");
  const auto args = nccl.get("args");
  if (args) {
    const auto elements = args->elements();
    for (std::size_t i = 0; i < elements.size(); ++i) {
      const std::string a = grid.arguments[i];
      for (const char* sized :
           {"-b", "-e", "-f", "-i", "--minbytes", "--maxbytes", "--stepfactor", "--stepbytes"}) {
        if (a == sized || a.rfind(std::string(sized) + "=", 0) == 0) {
          elements[i].fail(
              fmt::format("\"{}\" sets the sizes, which come from /grid/size, one per point", a));
        }
      }
    }
  }
  try {
    (void)parse_nccl_tests_invocation(grid.binary, grid.arguments);
  } catch (const InputError& e) {
    fail_at(args ? *args : nccl.at("binary"), e);
  }
  for (const auto& v : sizes.elements()) {
    std::vector<std::string> with_size = grid.arguments;
    const std::string size = size_text(v.raw());
    with_size.insert(with_size.end(), {"-b", size, "-e", size});
    try {
      (void)parse_nccl_tests_invocation(grid.binary, with_size);
    } catch (const InputError& e) {
      fail_at(v, e);
    }
  }
}

}  // namespace

const std::vector<std::string>& sweep_plan_keys() {
  static const std::vector<std::string> keys = {
      "data",        "tensor",        "pipeline",          "expert",        "zero_stage",
      "shard_group", "micro_batches", "sequence_parallel", "prefetch_depth"};
  return keys;
}

std::size_t SweepGrid::point_count() const {
  std::size_t n = 1;
  for (const auto& d : dimensions)
    n *= d.values.size();  // bounded by load_sweep_grid
  return n;
}

std::vector<const Json*> SweepGrid::point(std::size_t index) const {
  std::vector<const Json*> values(dimensions.size());
  for (std::size_t k = dimensions.size(); k-- > 0;) {
    const auto& d = dimensions[k];
    values[k] = &d.values[index % d.values.size()];
    index /= d.values.size();
  }
  return values;
}

const SweepDimension* SweepGrid::dimension(const std::string& key) const {
  for (const auto& d : dimensions)
    if (d.key == key) return &d;
  return nullptr;
}

SweepGrid load_sweep_grid(const std::string& path) {
  const Json doc = read_json_file(path);
  const JsonView root(doc, path);
  if (!root.is_object()) root.fail("expected a sweep grid (a JSON object)");
  root.expect_only({"$schema", "title", "description", "nccl_tests", "grid"});
  SweepGrid grid;
  grid.file = path;
  grid.kind = root.has("nccl_tests") ? SweepKind::nccl_tests : SweepKind::scenario;
  if (grid.kind == SweepKind::nccl_tests) {
    const JsonView nccl = root.at("nccl_tests");
    nccl.expect_only({"binary", "args", "env"});
    grid.binary = nccl.at("binary").as_string();
    if (auto a = nccl.get("args")) {
      for (const auto& e : a->elements())
        grid.arguments.push_back(e.as_string());
    }
    if (auto env = nccl.get("env")) {
      for (const auto& [name, value] : env->members())
        grid.environment.push_back(name + "=" + value.as_string());
    }
  }

  const JsonView g = root.at("grid");
  if (!g.is_object()) g.fail("expected an object of dimensions, each an array of values");
  std::vector<std::string> allowed = {"machine", "nodes"};
  std::vector<std::string> required = {"machine"};
  if (grid.kind == SweepKind::nccl_tests) {
    allowed.insert(allowed.end(), {"np", "size"});
    required.push_back("size");
  } else {
    allowed.insert(allowed.begin(), "scenario");
    allowed.insert(allowed.end(), sweep_plan_keys().begin(), sweep_plan_keys().end());
    required.insert(required.begin(), "scenario");
  }
  g.expect_only(allowed);
  for (const auto& key : required) {
    if (!g.has(key)) g.fail(fmt::format("missing required dimension \"{}\"", key));
  }
  std::size_t points = 1;
  for (const auto& [key, values] : g.members()) {
    grid.dimensions.push_back(read_dimension(key, values));
    const std::size_t n = grid.dimensions.back().values.size();
    if (points > kMaxSweepPoints / n) {
      values.fail(fmt::format("the grid has more than {} points; split it into several files",
                              kMaxSweepPoints));
    }
    points *= n;
  }
  enforce_schema(doc, path, sweep_schema_path());

  // Names last, each loaded once: a bad grid is reported before a machine that is missing.
  if (grid.kind == SweepKind::scenario) check_scenarios(grid, g.at("scenario"));
  check_machines(g.at("machine"));
  if (grid.kind == SweepKind::nccl_tests) check_nccl_tests(grid, root, g.at("size"));
  return grid;
}

}  // namespace linksim::app
