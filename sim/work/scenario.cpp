#include "sim/work/scenario.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "sim/coll/algorithm_registry.hpp"
#include "sim/core/data_dir.hpp"
#include "sim/core/error.hpp"
#include "sim/core/json_view.hpp"
#include "sim/core/schema_check.hpp"
#include "sim/topo/loader.hpp"
#include "sim/work/model.hpp"
#include "sim/work/scenario_parts.hpp"

namespace linksim::work {
namespace fs = std::filesystem;

std::string_view to_string(JobKind kind) {
  switch (kind) {
    case JobKind::training:
      return "training";
    case JobKind::prefill:
      return "prefill";
    case JobKind::decode:
      return "decode";
    case JobKind::serving:
      return "serving";
  }
  return "?";
}

namespace {

int positive_int(const JsonView& parent, std::string_view key, int fallback) {
  auto v = parent.get(key);
  if (!v) return fallback;
  const auto i = v->as_integer();
  if (i < 1 || i > 100'000'000) v->fail("expected a positive integer");
  return static_cast<int>(i);
}

// A topology reference: a shipped name, or a path (with a '/', or ending in .json) relative to
// the scenario's folder, never to the current directory.
std::string resolve_topology(const JsonView& v, const std::string& scenario_file) {
  const std::string ref = v.as_string();
  std::error_code ec;
  const bool looks_like_path =
      ref.find('/') != std::string::npos || fs::path(ref).extension() == ".json";
  if (looks_like_path) {
    const fs::path relative = fs::path(scenario_file).parent_path() / ref;
    if (!fs::is_regular_file(relative, ec)) {
      v.fail(fmt::format("no machine file \"{}\" (looked for {})", ref, relative.string()));
    }
    return relative.string();
  }
  const std::string resolved = topo::resolve_topology_path(ref);
  if (!fs::exists(resolved, ec)) {
    v.fail(
        fmt::format("unknown machine \"{}\": not a shipped topology (see `linksim topo list`) "
                    "nor a file",
                    ref));
  }
  return resolved;
}

// A model reference: a shipped name, or a path relative to the scenario's folder (as for
// topologies). A shipped name stays as written; a path comes back resolved. An unknown one is
// refused at /model.
std::string resolve_model(const JsonView& v, const std::string& scenario_file) {
  const std::string ref = v.as_string();
  std::error_code ec;
  const bool looks_like_path =
      ref.find('/') != std::string::npos || fs::path(ref).extension() == ".json";
  if (!looks_like_path) {
    if (!ref.empty() && fs::exists(shipped_model_path(ref), ec)) return ref;
    v.fail(
        fmt::format("unknown model \"{}\": not a shipped model (one of: {}); give a path to "
                    "a model file, relative to this scenario",
                    ref, fmt::join(shipped_model_names(), ", ")));
  }
  const fs::path relative = fs::path(scenario_file).parent_path() / ref;
  if (!fs::is_regular_file(relative, ec)) {
    v.fail(fmt::format("no model file \"{}\" (looked for {})", ref, relative.string()));
  }
  return relative.string();
}

// The job: what runs (a training, prefill, decode or serving job, or the seed article's
// gradient sync).
void parse_job(const JsonView& job, Scenario& s) {
  const std::string kind = job.at("kind").as_string();
  if (kind == "gradient_sync") {
    job.expect_only({"kind", "compute_time", "gradient_size"});
    GradientSync g;
    g.compute_s = job.at("compute_time").as_time_s();
    g.gradient_bytes = job.at("gradient_size").as_bytes();
    if (g.compute_s < 0) job.at("compute_time").fail("expected a time >= 0");
    if (!(g.gradient_bytes > 0)) job.at("gradient_size").fail("expected a size > 0");
    s.gradient_sync = g;
  } else if (kind == "serving") {
    job.expect_only({"kind", "request_rate", "requests", "input_tokens", "output_tokens",
                     "max_batch", "seed", "slo"});
    s.job.kind = JobKind::serving;
    s.job.serving = parse_serving(job);
    // What must fit beside the weights: one request of the longest input and output.
    s.job.global_batch = 1;
    s.job.sequence_length = s.job.serving.input_tokens.max;
    s.job.decode_tokens = s.job.serving.output_tokens.max;
  } else {
    job.expect_only({"kind", "global_batch", "sequence_length", "decode_tokens", "finetune",
                     "train_tokens", "goodput"});
    if (kind == "training") {
      s.job.kind = JobKind::training;
    } else if (kind == "prefill") {
      s.job.kind = JobKind::prefill;
    } else if (kind == "decode") {
      s.job.kind = JobKind::decode;
    } else {
      job.at("kind").fail(
          fmt::format("unknown job kind \"{}\"; expected training, prefill, "
                      "decode, serving or gradient_sync",
                      kind));
    }
    s.job.global_batch = positive_int(job, "global_batch", 1);
    s.job.sequence_length = positive_int(job, "sequence_length", 2048);
    s.job.decode_tokens = positive_int(job, "decode_tokens", 1);
    if (auto f = job.get("finetune")) s.job.finetune = parse_finetune(*f);
    if (auto t = job.get("train_tokens")) {
      if (s.job.kind != JobKind::training) t->fail("a token budget needs a training job");
      const double tokens = t->as_number();
      if (!(tokens >= 1) || !std::isfinite(tokens)) t->fail("expected a number of tokens >= 1");
      s.job.train_tokens = tokens;
    }
    if (auto g = job.get("goodput")) {
      if (!job.get("train_tokens")) g->fail("goodput scales a token budget: give train_tokens");
      const double goodput = g->as_number();
      if (!(goodput > 0 && goodput <= 1)) g->fail("expected a share of time above 0, at most 1");
      s.job.goodput = goodput;
    }
  }
}

// The parallel plan: degrees, ZeRO, buckets, recompute, offload.
void parse_plan(const JsonView& plan, Scenario& s) {
  plan.expect_only({"data", "tensor", "pipeline", "expert", "context", "zero_stage", "shard_group",
                    "sequence_parallel", "micro_batches", "virtual_stages", "first_stage_layers",
                    "last_stage_layers", "bucket_size", "recompute", "prefetch", "prefetch_depth",
                    "flash_attention", "activation_offload", "optimizer_offload"});
  if (auto dv = plan.get("data"); dv && dv->is_string()) {
    if (dv->as_string() != "fill") {
      dv->fail("expected a data-parallel degree (a positive integer) or \"fill\"");
    }
    s.plan.data_fills = true;
  } else {
    s.plan.data = positive_int(plan, "data", 1);
  }
  s.plan.tensor = positive_int(plan, "tensor", 1);
  s.plan.pipeline = positive_int(plan, "pipeline", 1);
  s.plan.expert = positive_int(plan, "expert", 1);
  s.plan.context = positive_int(plan, "context", 1);
  s.plan.micro_batches = positive_int(plan, "micro_batches", 1);
  s.plan.virtual_stages = positive_int(plan, "virtual_stages", 1);
  if (plan.has("first_stage_layers"))
    s.plan.first_stage_layers = positive_int(plan, "first_stage_layers", 1);
  if (plan.has("last_stage_layers"))
    s.plan.last_stage_layers = positive_int(plan, "last_stage_layers", 1);
  s.plan.sequence_parallel = plan.bool_or("sequence_parallel", false);
  if (auto r = plan.get("recompute")) s.plan.recompute = parse_recompute(*r);
  if (auto f = plan.get("flash_attention")) s.plan.flash_attention = f->as_bool();
  s.plan.activation_offload = plan.bool_or("activation_offload", false);
  s.plan.optimizer_offload = plan.bool_or("optimizer_offload", false);
  for (const char* key : {"activation_offload", "optimizer_offload"}) {
    if (plan.bool_or(key, false) && s.job.kind != JobKind::training) {
      plan.at(key).fail(fmt::format("\"{}\" applies to a training job", key));
    }
  }
  s.plan.prefetch = plan.bool_or("prefetch", true);
  s.plan.prefetch_depth = positive_int(plan, "prefetch_depth", 1);
  if (auto z = plan.get("zero_stage")) {
    const auto stage = z->as_integer();
    if (stage < 0 || stage > 3) z->fail("expected a ZeRO stage from 0 to 3");
    s.plan.zero_stage = static_cast<int>(stage);
  }
  if (plan.get("shard_group")) s.plan.shard_group = positive_int(plan, "shard_group", 1);
  if (auto b = plan.get("bucket_size")) {
    s.plan.bucket_bytes = b->as_bytes();
    if (!(s.plan.bucket_bytes > 0)) b->fail("expected a size > 0");
  }
}

ComputeModel parse_compute(const JsonView& c) {
  ComputeModel compute;
  c.expect_only({"efficiency", "comm_sm_share"});
  if (auto e = c.get("efficiency")) {
    compute.efficiency = e->as_number();
    if (!(*compute.efficiency > 0) || *compute.efficiency > 1) {
      e->fail("expected a fraction of peak in (0, 1]");
    }
  }
  if (auto share = c.get("comm_sm_share")) {
    const double v = share->as_number();
    if (v < 0 || v >= 1) share->fail("expected a fraction in [0, 1)");
    compute.comm_sm_share = v;
  }
  return compute;
}

// Forced algorithm and protocol, spelled exactly as the registry and NCCL name them.
void parse_overrides(const JsonView& o, Scenario& s) {
  o.expect_only({"algorithm", "protocol"});
  // A file spells a name one way, the registry's (as the schema's enum does); the lenient
  // spellings NCCL_ALGO and NCCL_PROTO take are for the environment and the command line.
  if (auto a = o.get("algorithm")) {
    const auto& registry = coll::AlgorithmRegistry::builtin();
    const std::string name = a->as_string();
    s.algorithm = registry.find(name);
    if (!s.algorithm || s.algorithm->name() != name) {
      a->fail(registry.unknown_name_message(name) + " (spelled exactly so)");
    }
  }
  if (auto p = o.get("protocol")) {
    const std::string name = p->as_string();
    s.protocol = coll::protocol_from_string(name);
    if (!s.protocol || coll::to_string(*s.protocol) != name) {
      p->fail(
          fmt::format("unknown protocol \"{}\"; expected one of LL, LL128, Simple (spelled "
                      "exactly so)",
                      name));
    }
  }
}

}  // namespace

Scenario load_scenario(const std::string& path_in) {
  const std::string path = resolve_scenario_path(path_in);
  const Json doc = read_json_file(path);
  const JsonView root(doc, path);
  root.expect_only({"$schema", "title", "description", "topologies", "model", "job", "plan",
                    "compute", "overrides", "notes", "precision"});
  Scenario s;
  s.file = path;
  s.name = fs::path(path).stem().string();
  s.title = root.at("title").as_string();
  s.description = root.string_or("description", "");
  for (const auto& t : root.at("topologies").elements())
    s.topologies.push_back(resolve_topology(t, path));
  if (s.topologies.empty()) root.at("topologies").fail("expected at least one machine");
  if (auto n = root.get("notes")) {
    for (const auto& e : n->elements())
      s.notes.push_back(e.as_string());
  }

  parse_job(root.at("job"), s);
  if (auto p = root.get("precision")) {
    if (s.gradient_sync) p->fail("a gradient_sync job takes no \"precision\"");
    s.job.precision = parse_precision(*p);
  }
  if (!s.gradient_sync) check_precision_and_finetune(root, s.job);

  if (s.gradient_sync) {
    if (auto plan = root.get("plan")) {
      plan->fail(
          "a gradient_sync job takes no \"plan\": it times one all-reduce of gradient_size on "
          "every GPU of the machine");
    }
    if (auto model = root.get("model")) {
      model->fail("a gradient_sync job takes no \"model\": its size is job/gradient_size");
    }
  }
  if (auto plan = root.get("plan")) {
    parse_plan(*plan, s);
  } else if (!s.gradient_sync) {
    root.fail("missing required field \"plan\"");
  }

  if (auto c = root.get("compute")) s.compute = parse_compute(*c);
  if (auto o = root.get("overrides")) parse_overrides(*o, s);
  // Last, so that a bad plan or job is reported before a model that is missing.
  if (!s.gradient_sync) s.model = resolve_model(root.at("model"), path);
  if (!s.gradient_sync && !s.job.precision.matmul.empty()) {
    check_matmul_precision(root, s.job, scenario_model(s).dtype, s.compute.efficiency.has_value());
  }
  if (!s.gradient_sync &&
      !(s.job.precision.optimizer_states.empty() && s.job.precision.master_weights.empty())) {
    check_optimizer_precision(root, s.job, scenario_model(s).dtype);
  }
  enforce_schema(doc, path, scenario_schema_path());
  return s;
}

ModelSpec scenario_model(const Scenario& scenario) {
  ModelSpec model = load_model(scenario.model);
  if (!scenario.job.precision.dtype.empty()) model.dtype = scenario.job.precision.dtype;
  return model;
}

std::vector<std::string> shipped_scenario_files() {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(data_dir() + "/scenarios", ec)) {
    if (e.path().extension() == ".json" && e.path().filename() != "schema.json") {
      out.push_back(e.path().string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string resolve_scenario_path(const std::string& name_or_path) {
  std::error_code ec;
  if (fs::exists(name_or_path, ec)) return name_or_path;
  const fs::path shipped = fs::path(data_dir()) / "scenarios" / (name_or_path + ".json");
  if (name_or_path.find('/') == std::string::npos && fs::exists(shipped, ec))
    return shipped.string();
  return name_or_path;
}

}  // namespace linksim::work
