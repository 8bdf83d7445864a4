#include "validate/accuracy_jobs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "sim/core/data_dir.hpp"
#include "sim/core/error.hpp"
#include "sim/core/json_number.hpp"
#include "sim/core/parallel_cases.hpp"
#include "sim/core/schema_check.hpp"

namespace linksim::validate {
namespace {

namespace fs = std::filesystem;

int plan_int(const Json& plan, const char* key) {
  return plan.contains(key) ? plan.at(key).get<int>() : 1;
}

JobRun parse_run(const Json& r) {
  JobRun run;
  run.id = r.at("id").get<std::string>();
  run.model = r.at("model").get<std::string>();
  run.machine = r.at("machine").get<std::string>();
  run.nodes = r.at("nodes").get<int>();
  run.plan = r.at("plan");
  run.global_batch = r.at("job").at("global_batch").get<int>();
  run.sequence_length = r.at("job").at("sequence_length").get<int>();
  run.precision = r.at("job").at("precision").get<std::string>();
  if (r.at("job").contains("optimizer")) {
    const Json& o = r.at("job").at("optimizer");
    run.optimizer_states = o.value("states", "");
    run.master_weights = o.value("master_weights", "");
  }
  run.measured_value = r.at("measured").at("value").get<double>();
  run.measured_unit = r.at("measured").at("unit").get<std::string>();
  run.series = r.value("series", "");
  run.excerpt = r.at("excerpt").get<std::string>();
  run.url = r.at("url").get<std::string>();
  return run;
}

// Tokens per second per GPU at a step time.
double tokens_per_gpu_s(const JobRun& run, double step_s) {
  return static_cast<double>(run.global_batch) * run.sequence_length / (step_s * run.gpus());
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Adam's state, when the run states one: ", Adam: bf16 moments, no master copy".
std::string optimizer_text(const JobRun& run) {
  if (run.optimizer_states.empty() && run.master_weights.empty()) return "";
  const std::string states = run.optimizer_states.empty() ? "fp32" : run.optimizer_states;
  const std::string& m = run.master_weights;
  const std::string master = m == "none"        ? "no master copy"
                             : m == "remainder" ? "master as 16-bit remainders"
                                                : "fp32 master";
  return fmt::format(", Adam: {} moments, {}", states, master);
}

std::string plan_text(const Json& plan) {
  std::string out = fmt::format("DP {} x TP {} x PP {}", plan_int(plan, "data"),
                                plan_int(plan, "tensor"), plan_int(plan, "pipeline"));
  if (plan_int(plan, "context") > 1) out += fmt::format(" x CP {}", plan_int(plan, "context"));
  if (plan_int(plan, "virtual_stages") > 1)
    out += fmt::format(", VP {}", plan_int(plan, "virtual_stages"));
  out += fmt::format(", {} micro-batches", plan_int(plan, "micro_batches"));
  if (plan.contains("zero_stage") && plan.at("zero_stage").get<int>() > 0)
    out += fmt::format(", ZeRO-{}", plan.at("zero_stage").get<int>());
  if (plan.value("sequence_parallel", false)) out += ", SP";
  if (plan.contains("recompute") && plan.at("recompute").is_string() &&
      plan.at("recompute").get<std::string>() != "none")
    out += fmt::format(", {} recompute", plan.at("recompute").get<std::string>());
  if (plan.contains("flash_attention") && !plan.at("flash_attention").get<bool>())
    out += ", no FlashAttention";
  return out;
}

// A Markdown table cell: no pipes or line breaks.
std::string cell(std::string s) {
  std::string out;
  for (char c : s) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

// Why a run was refused, in a few words (the Markdown's table of refusals; each source's table
// has linksim's whole message).
std::string refusal_kind(const JobRun&) {
  return "refused by linksim as stated (does not fit, task bound, input)";
}

std::string percent(double x) {
  return fmt::format("{:+.1f}%", 100 * x);
}

}  // namespace

int JobRun::gpus() const {
  return plan_int(plan, "data") * plan_int(plan, "tensor") * plan_int(plan, "pipeline") *
         plan_int(plan, "context");
}

double JobRun::measured_step_s() const {
  const double tokens = static_cast<double>(global_batch) * sequence_length;
  if (measured_unit == "tokens_per_s_per_gpu") return tokens / (measured_value * gpus());
  if (measured_unit == "tokens_per_s") return tokens / measured_value;
  return measured_value;  // step_s
}

std::optional<double> JobRow::error() const {
  if (!predicted.step_s) return std::nullopt;
  return *predicted.step_s / measured_step_s - 1;
}

std::string default_jobs_dir() {
  return data_dir() + "/validate/jobs";
}

std::vector<JobSource> load_job_sources(const std::string& dir) {
  if (!fs::is_directory(dir)) throw InputError(dir, "", "not a folder of job sources");
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const fs::path& p = entry.path();
    if (p.extension() == ".json" && p.filename() != "schema.json") files.push_back(p.string());
  }
  std::sort(files.begin(), files.end());
  const std::string schema = dir + "/schema.json";
  std::vector<JobSource> sources;
  for (const auto& file : files) {
    const Json doc = read_json_file(file);
    enforce_schema(doc, file, schema);
    JobSource s;
    s.name = fs::path(file).stem().string();
    s.file = file;
    const Json& meta = doc.at("source");
    s.title = meta.at("title").get<std::string>();
    s.url = meta.at("url").get<std::string>();
    s.version = meta.at("version").get<std::string>();
    s.conversion = meta.at("conversion").get<std::string>();
    for (const auto& r : doc.at("runs"))
      s.runs.push_back(parse_run(r));
    sources.push_back(std::move(s));
  }
  return sources;
}

std::string unsupported_feature(const JobRun&) {
  return "";  // FP8 training is modelled (precision.matmul, docs/compute-model.md)
}

Json job_scenario(const JobRun& run) {
  const Json& plan = run.plan;
  Json scenario{{"title", run.id},
                {"topologies", Json::array({run.machine})},
                {"model", run.model},
                {"job",
                 {{"kind", "training"},
                  {"global_batch", run.global_batch},
                  {"sequence_length", run.sequence_length}}},
                {"plan", plan}};
  // FP8 runs (NeMo and Megatron-LM with Transformer Engine's FP8 recipe): the linear layers'
  // GEMMs in FP8; the model's dtype (bf16) everywhere else.
  // The run's dtype: a model file may give its published checkpoint's fp16 where the run
  // trained in bf16. FP8 runs keep bf16 everywhere but the linear layers' GEMMs.
  scenario["precision"]["dtype"] = run.precision == "fp8" ? "bf16" : run.precision;
  if (run.precision == "fp8") scenario["precision"]["matmul"] = "fp8";
  if (!run.optimizer_states.empty())
    scenario["precision"]["optimizer_states"] = run.optimizer_states;
  if (!run.master_weights.empty()) scenario["precision"]["master_weights"] = run.master_weights;
  return scenario;
}

std::vector<JobSourceResult> evaluate_jobs(const std::vector<JobSource>& sources,
                                           const JobPredictor& predict, int threads) {
  std::vector<JobSourceResult> results;
  std::vector<JobRow*> rows;
  for (const auto& s : sources) {
    JobSourceResult r;
    r.source = s;
    for (const auto& run : s.runs) {
      JobRow row;
      row.run = run;
      row.measured_step_s = run.measured_step_s();
      r.rows.push_back(row);
    }
    results.push_back(std::move(r));
  }
  for (auto& r : results)
    for (auto& row : r.rows)
      rows.push_back(&row);
  run_cases(rows.size(), threads, [&](std::size_t i) {
    JobRow& row = *rows[i];
    const std::string why = unsupported_feature(row.run);
    row.predicted = why.empty() ? predict(row.run) : JobPrediction{std::nullopt, why};
  });
  for (auto& r : results) {
    std::vector<double> abs_errors, predicted, measured;
    for (const auto& row : r.rows) {
      if (!row.predicted.step_s) continue;
      abs_errors.push_back(std::fabs(*row.error()));
      predicted.push_back(tokens_per_gpu_s(row.run, *row.predicted.step_s));
      measured.push_back(tokens_per_gpu_s(row.run, row.measured_step_s));
    }
    r.simulated = abs_errors.size();
    if (!abs_errors.empty()) r.median_abs_error = median(abs_errors);
    if (predicted.size() >= 3) r.spearman = spearman_rho(predicted, measured);
  }
  return results;
}

std::vector<double> average_ranks(const std::vector<double>& values) {
  std::vector<std::size_t> order(values.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
  std::vector<double> ranks(values.size());
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && values[order[j + 1]] == values[order[i]])
      ++j;
    const double rank = (static_cast<double>(i + 1) + static_cast<double>(j + 1)) / 2;
    for (std::size_t k = i; k <= j; ++k)
      ranks[order[k]] = rank;
    i = j + 1;
  }
  return ranks;
}

std::optional<double> spearman_rho(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size() || x.size() < 2) return std::nullopt;
  const std::vector<double> rx = average_ranks(x), ry = average_ranks(y);
  const double n = static_cast<double>(x.size());
  const double mean = (n + 1) / 2;  // the mean of any average ranks of n values
  double sxy = 0, sxx = 0, syy = 0;
  for (std::size_t i = 0; i < rx.size(); ++i) {
    sxy += (rx[i] - mean) * (ry[i] - mean);
    sxx += (rx[i] - mean) * (rx[i] - mean);
    syy += (ry[i] - mean) * (ry[i] - mean);
  }
  if (sxx == 0 || syy == 0) return std::nullopt;
  return sxy / std::sqrt(sxx * syy);
}

namespace {

// FP8 against BF16: each FP8 run whose source also measured the same model, machine, plan and
// batch at 16 bits, with both sides' speed-up (16-bit step / FP8 step); empty when none.
std::string precision_pairs_table(const JobSourceResult& r) {
  std::string out;
  for (const auto& fp8 : r.rows) {
    if (fp8.run.precision != "fp8" || !fp8.predicted.step_s) continue;
    for (const auto& wide : r.rows) {
      const JobRun& a = wide.run;
      const JobRun& b = fp8.run;
      if (a.precision == "fp8" || !wide.predicted.step_s || a.model != b.model ||
          a.machine != b.machine || a.nodes != b.nodes || a.plan != b.plan ||
          a.global_batch != b.global_batch || a.sequence_length != b.sequence_length)
        continue;
      if (out.empty()) {
        out +=
            "\n| FP8 against 16 bits | GPUs | measured speed-up (16-bit step / FP8 step) | "
            "predicted | predicted / measured |\n|---|---|---|---|---|\n";
      }
      const double measured = wide.measured_step_s / fp8.measured_step_s;
      const double predicted = *wide.predicted.step_s / *fp8.predicted.step_s;
      out += fmt::format("| {} ({} / {}) | {} | x{:.3f} | x{:.3f} | {:.3f} |\n", b.model, a.id,
                         b.id, b.gpus(), measured, predicted, predicted / measured);
      break;
    }
  }
  return out;
}

}  // namespace

std::string format_jobs_markdown(const std::vector<JobSourceResult>& results) {
  std::size_t runs = 0, ran = 0;
  std::vector<double> all_abs_errors;
  // Refused runs by why: linksim's own refusals (does not fit, the task bound, bad input) and
  // the features it does not model, each with the runs it stopped.
  std::vector<std::string> kinds;
  std::map<std::string, std::vector<std::string>> refused;
  for (const auto& r : results) {
    for (const auto& row : r.rows) {
      ++runs;
      if (row.predicted.step_s) {
        ++ran;
        all_abs_errors.push_back(std::fabs(*row.error()));
        continue;
      }
      const std::string kind = refusal_kind(row.run);
      if (!refused.contains(kind)) kinds.push_back(kind);
      refused[kind].push_back(row.run.id);
    }
  }
  std::string out =
      "\n## Training jobs against published measurements\n\n"
      "From `validate/jobs/*.json` (`--training-jobs`; schema: "
      "`validate/jobs/schema.json`): training runs that public sources measured and state in "
      "full (model, plan, global batch, sequence length, GPUs), one file per source, each run "
      "with a verbatim excerpt of its row. Each run is simulated as `linksim run` runs a "
      "scenario: one machine, the model, a training job and the plan, with `--nodes` nodes "
      "(`validate::job_scenario`). The measured throughput of Narayanan et al. (SC'21), "
      "Korthikanti et al. (2022) and the Llama 3 paper is kept out of this set, for independent "
      "checking (model dimensions from them are used).\n\n"
      "Leave-one-source-out: no constant in linksim is fitted to any of these sources, per model, "
      "per cluster or overall (nothing here is read back into sim/), so fitting on the other "
      "sources and testing on one changes nothing: each source's figures below are already its "
      "held-out figures.\n\n"
      "Error = predicted step time / measured step time - 1 (negative: linksim is too fast). "
      "Spearman is the rank correlation of predicted against measured tokens/s per GPU over a "
      "source's runs that ran (ties get average ranks; none under 3 runs). A run linksim refuses "
      "(a feature it does not model, does not fit, the task bound) is listed in its source's table "
      "with the reason and counts in neither the median nor Spearman. Where a source measured "
      "the same run in FP8 and at 16 bits, a table after its runs sets the FP8 speed-up it "
      "measured beside the one linksim predicts.\n\n"
      "| source | runs | ran | refused | median abs error (runs that ran) | Spearman (runs that "
      "ran) |\n"
      "|---|---|---|---|---|---|\n";
  for (const auto& r : results) {
    out += fmt::format("| {} | {} | {} | {} | {} | {} |\n", r.source.name, r.rows.size(),
                       r.simulated, r.rows.size() - r.simulated,
                       r.median_abs_error ? fmt::format("{:.1f}%", 100 * *r.median_abs_error) : "-",
                       r.spearman ? fmt::format("{:+.2f}", *r.spearman) : "-");
  }
  out += fmt::format("| all sources | {} | {} | {} | {} | (per source only) |\n", runs, ran,
                     runs - ran,
                     all_abs_errors.empty() ? std::string("-")
                                            : fmt::format("{:.1f}%", 100 * median(all_abs_errors)));
  if (!kinds.empty()) {
    out += fmt::format(
        "\n{} of {} runs ran; {} were refused:\n\n| why | runs | which |\n|---|---|---|\n", ran,
        runs, runs - ran);
    for (const auto& kind : kinds) {
      std::string ids;
      for (const auto& id : refused[kind])
        ids += (ids.empty() ? "" : ", ") + id;
      out += fmt::format("| {} | {} | {} |\n", kind, refused[kind].size(), ids);
    }
  }
  for (const auto& r : results) {
    out += fmt::format("\n### {}\n\nFile: `validate/jobs/{}.json`. Source: {} ({}). {}\n\n",
                       r.source.title, r.source.name, r.source.url, r.source.version,
                       r.source.conversion);
    out +=
        "| run | model | machine x nodes | GPUs | plan | batch x sequence | measured step (s) | "
        "predicted step (s) | error |\n"
        "|---|---|---|---|---|---|---|---|---|\n";
    for (const auto& row : r.rows) {
      const JobRun& run = row.run;
      out +=
          fmt::format("| {} | {} | {} x {} | {} | {} | {} x {} | {:.3f} | ", run.id, run.model,
                      run.machine, run.nodes, run.gpus(), plan_text(run.plan) + optimizer_text(run),
                      run.global_batch, run.sequence_length, row.measured_step_s);
      if (row.predicted.step_s) {
        out += fmt::format("{:.3f} | {} |\n", *row.predicted.step_s, percent(*row.error()));
      } else {
        out += fmt::format("refused: {} | - |\n", cell(row.predicted.refusal));
      }
    }
    // Each series (weak scaling, strong scaling, model size): how throughput per GPU moves from
    // its first run to its last, measured and predicted.
    std::map<std::string, std::vector<const JobRow*>> series;
    std::vector<std::string> names;
    for (const auto& row : r.rows) {
      if (row.run.series.empty() || !row.predicted.step_s) continue;
      if (!series.contains(row.run.series)) names.push_back(row.run.series);
      series[row.run.series].push_back(&row);
    }
    bool header = false;
    for (const auto& name : names) {
      const auto& rows = series[name];
      if (rows.size() < 2) continue;
      if (!header) {
        out +=
            "\n| series | GPUs | measured tokens/s/GPU, last / first | predicted, last / "
            "first | same direction |\n|---|---|---|---|---|\n";
        header = true;
      }
      const JobRow& a = *rows.front();
      const JobRow& b = *rows.back();
      const double measured =
          tokens_per_gpu_s(b.run, b.measured_step_s) / tokens_per_gpu_s(a.run, a.measured_step_s);
      const double predicted = tokens_per_gpu_s(b.run, *b.predicted.step_s) /
                               tokens_per_gpu_s(a.run, *a.predicted.step_s);
      const bool same = (measured >= 1) == (predicted >= 1);
      out += fmt::format("| {} | {} -> {} | x{:.3f} | x{:.3f} | {} |\n", name, a.run.gpus(),
                         b.run.gpus(), measured, predicted, same ? "yes" : "no");
    }
    out += precision_pairs_table(r);
  }
  return out;
}

std::string jobs_json(const std::vector<JobSourceResult>& results) {
  Json all = Json::array();
  for (const auto& r : results) {
    Json rows = Json::array();
    for (const auto& row : r.rows) {
      Json j{{"id", row.run.id},
             {"model", row.run.model},
             {"machine", row.run.machine},
             {"nodes", row.run.nodes},
             {"gpus", row.run.gpus()},
             {"measured_step_s", exact_json_number(row.measured_step_s)}};
      if (row.predicted.step_s) {
        j["predicted_step_s"] = exact_json_number(*row.predicted.step_s);
        j["error"] = exact_json_number(*row.error());
      } else {
        j["refusal"] = row.predicted.refusal;
      }
      rows.push_back(std::move(j));
    }
    Json s{{"source", r.source.name},
           {"title", r.source.title},
           {"url", r.source.url},
           {"simulated", r.simulated},
           {"rows", std::move(rows)}};
    s["median_abs_error"] =
        r.median_abs_error ? exact_json_number(*r.median_abs_error) : Json(nullptr);
    s["spearman"] = r.spearman ? exact_json_number(*r.spearman) : Json(nullptr);
    all.push_back(std::move(s));
  }
  return all.dump(2) + "\n";
}

}  // namespace linksim::validate
