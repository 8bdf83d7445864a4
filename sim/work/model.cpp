#include "sim/work/model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <limits>
#include <stdexcept>

#include "sim/core/data_dir.hpp"
#include "sim/core/error.hpp"
#include "sim/core/schema_check.hpp"

namespace linksim::work {
namespace fs = std::filesystem;
namespace {

// Fields every model file may carry.
const std::vector<std::string> kCommonFields = {
    "$schema", "title", "description", "sources", "notes", "dtype", "published_parameters"};
// Architecture fields; a plain model accepts only "layers" and "hidden" of these.
const std::vector<std::string> kArchitectureFields = {
    "layers",     "hidden",          "heads",   "kv_heads",
    "ffn_hidden", "vocab",           "experts", "experts_per_token",
    "gated_ffn",  "tied_embeddings", "dropout"};

std::string models_dir() {
  return data_dir() + "/models";
}

// A strictly positive integer that fits an int.
int positive_int(const JsonView& view) {
  const std::int64_t v = view.as_integer();
  if (v <= 0) view.fail(fmt::format("expected a positive integer, got {}", v));
  if (v > std::numeric_limits<int>::max()) view.fail(fmt::format("{} is too large", v));
  return static_cast<int>(v);
}

int positive_int_or(const JsonView& root, std::string_view key, int fallback) {
  auto v = root.get(key);
  return v ? positive_int(*v) : fallback;
}

double parameter_count(const JsonView& view) {
  const double v = view.as_number();
  if (!(v > 0)) view.fail(fmt::format("expected a positive number, got {}", v));
  if (v > kMaxModelParameters) {
    view.fail(
        fmt::format("{:g} parameters is above the {:g} linksim accepts", v, kMaxModelParameters));
  }
  return v;
}

std::vector<std::string> string_list(const JsonView& view) {
  std::vector<std::string> out;
  for (const auto& e : view.elements())
    out.push_back(e.as_string());
  return out;
}

void parse_plain(const JsonView& root, ModelSpec& m) {
  for (const auto& [key, value] : root.members()) {
    if (key == "layers" || key == "hidden") continue;
    if (std::find(kArchitectureFields.begin(), kArchitectureFields.end(), key) !=
        kArchitectureFields.end()) {
      value.fail(fmt::format(
          "a plain model (\"parameters\") takes no \"{}\"; its only architecture fields are "
          "\"layers\" and \"hidden\"",
          key));
    }
  }
  m.plain_parameters = parameter_count(root.at("parameters"));
  m.layers = positive_int_or(root, "layers", 1);
  m.hidden = positive_int_or(root, "hidden", 0);
  m.published_parameters = *m.plain_parameters;
}

void parse_architecture(const JsonView& root, ModelSpec& m) {
  m.layers = positive_int(root.at("layers"));
  m.hidden = positive_int(root.at("hidden"));
  m.heads = positive_int(root.at("heads"));
  m.kv_heads = positive_int_or(root, "kv_heads", m.heads);
  m.ffn_hidden = positive_int(root.at("ffn_hidden"));
  m.vocab = positive_int(root.at("vocab"));
  m.gated_ffn = root.bool_or("gated_ffn", true);
  m.tied_embeddings = root.bool_or("tied_embeddings", false);
  m.dropout = root.bool_or("dropout", false);
  if (m.hidden % m.heads != 0) {
    root.at("heads").fail(fmt::format("heads ({}) must divide hidden ({})", m.heads, m.hidden));
  }
  if (m.heads % m.kv_heads != 0) {
    root.at("kv_heads")
        .fail(fmt::format("kv_heads ({}) must divide heads ({})", m.kv_heads, m.heads));
  }
  const bool has_experts = root.has("experts");
  const bool has_top_k = root.has("experts_per_token");
  if (has_experts != has_top_k) {
    root.fail(
        "\"experts\" and \"experts_per_token\" go together: give both for a MoE model, "
        "neither for a dense one");
  }
  if (has_experts) {
    m.experts = positive_int(root.at("experts"));
    m.experts_per_token = positive_int(root.at("experts_per_token"));
    if (m.experts_per_token > m.experts) {
      root.at("experts_per_token")
          .fail(fmt::format("experts_per_token ({}) must not exceed experts ({})",
                            m.experts_per_token, m.experts));
    }
  }
}

}  // namespace

const std::vector<std::string>& dtype_names() {
  static const std::vector<std::string> names = {"bf16", "fp16", "fp32", "fp8"};
  return names;
}

double dtype_bytes(const std::string& dtype) {
  if (dtype == "bf16" || dtype == "fp16") return 2;
  if (dtype == "fp32") return 4;
  if (dtype == "fp8") return 1;
  throw std::invalid_argument("unknown dtype \"" + dtype + "\"");
}

ModelSpec parse_model(const Json& document, const std::string& file,
                      const std::string& default_name) {
  const JsonView root(document, file);
  if (!root.is_object()) root.fail("expected an object, got " + json_type_name(document));
  const bool plain = root.has("parameters");
  std::vector<std::string> allowed = kCommonFields;
  allowed.insert(allowed.end(), kArchitectureFields.begin(), kArchitectureFields.end());
  allowed.push_back("parameters");
  root.expect_only(allowed);

  ModelSpec m;
  m.name = default_name;
  m.title = root.at("title").as_string();
  if (auto s = root.get("sources")) m.sources = string_list(*s);
  if (auto d = root.get("dtype")) {
    m.dtype = d->as_string();
    const auto& names = dtype_names();
    if (std::find(names.begin(), names.end(), m.dtype) == names.end()) {
      d->fail(
          fmt::format("unknown dtype \"{}\"; expected one of: {} (quantized weights, "
                      "int8, int4 or nf4, are a scenario's precision.weights)",
                      m.dtype, fmt::join(names, ", ")));
    }
  }
  if (plain) {
    parse_plain(root, m);
  } else {
    parse_architecture(root, m);
  }
  if (auto p = root.get("published_parameters")) m.published_parameters = parameter_count(*p);
  enforce_schema(document, file, model_schema_path());
  return m;
}

std::vector<std::string> shipped_model_files() {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(models_dir(), ec)) {
    const auto& p = entry.path();
    if (p.extension() == ".json" && p.filename() != "schema.json") out.push_back(p.string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> shipped_model_names() {
  std::vector<std::string> out;
  for (const auto& f : shipped_model_files())
    out.push_back(fs::path(f).stem().string());
  return out;
}

std::string shipped_model_path(const std::string& name) {
  return (fs::path(models_dir()) / (name + ".json")).string();
}

ModelSpec load_model(const std::string& name_or_path) {
  std::error_code ec;
  std::string path = name_or_path;
  const bool looks_like_path =
      name_or_path.find('/') != std::string::npos || fs::path(name_or_path).extension() == ".json";
  if (!fs::exists(path, ec)) {
    const fs::path shipped = shipped_model_path(name_or_path);
    if (looks_like_path || !fs::exists(shipped, ec)) {
      throw InputError(name_or_path, "",
                       fmt::format("no such model file or shipped model; shipped models: {}",
                                   fmt::join(shipped_model_names(), ", ")));
    }
    path = shipped.string();
  }
  return parse_model(read_json_file(path), path, fs::path(path).stem().string());
}

}  // namespace linksim::work
