#include "sim/core/schema_check.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <locale>
#include <map>
#include <memory>
#include <mutex>
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>

#include "sim/core/data_dir.hpp"
#include "sim/core/error.hpp"

namespace linksim {
namespace {

namespace fs = std::filesystem;
using PlainJson = nlohmann::json;

struct Violation {
  std::vector<std::string> pointer;  // JSON pointer segments, unescaped
  std::string description;           // valijson's words
};

// valijson names a place as {"<root>", "[job]", "[kind]"}; this gives {"job", "kind"}.
std::vector<std::string> segments(const std::vector<std::string>& context) {
  std::vector<std::string> out;
  for (const auto& c : context) {
    if (c == "<root>") continue;
    const bool bracketed = c.size() >= 2 && c.front() == '[' && c.back() == ']';
    out.push_back(bracketed ? c.substr(1, c.size() - 2) : c);
  }
  return out;
}

std::string pointer_text(const std::vector<std::string>& pointer) {
  std::string out;
  for (const auto& s : pointer)
    out += "/" + json_pointer_escape(s);
  return out.empty() ? "/" : out;
}

std::vector<Violation> validate(const valijson::Schema& schema, const PlainJson& document) {
  valijson::Validator validator;
  valijson::ValidationResults results;
  valijson::adapters::NlohmannJsonAdapter adapter(document);
  std::vector<Violation> out;
  if (validator.validate(schema, adapter, &results)) return out;
  valijson::ValidationResults::Error error;
  while (results.popError(error)) {
    Violation v{segments(error.context), error.description};
    // An unknown member is reported at its object; point at the member itself.
    const std::string unknown =
        "could not be validated using 'properties' or "
        "'additionalProperties' constraints: '";
    if (const auto at = v.description.find(unknown); at != std::string::npos) {
      const auto start = at + unknown.size();
      v.pointer.push_back(v.description.substr(start, v.description.rfind('\'') - start));
    }
    out.push_back(std::move(v));
  }
  return out;
}

// A schema file compiled once; `present` is false when the file does not exist.
struct CompiledSchema {
  bool present = false;
  std::string name;  // "scenarios/schema.json", for messages
  PlainJson json;
  valijson::Schema schema;
};

// valijson builds a std::regex for each "pattern" at every validation, and libstdc++'s regex
// scanner fills the global ctype<char>'s narrow() cache as it reads: a write that two threads
// validating at once (compare's machines) race on (GCC bug 77704). Filling the cache here, under
// the lock every validation takes first, leaves them only reads.
void fill_narrow_cache() {
  const auto& ctype = std::use_facet<std::ctype<char>>(std::locale());
  for (int c = 1; c < 256; ++c)
    ctype.narrow(static_cast<char>(c), '\0');
}

const CompiledSchema& compiled(const std::string& schema_path) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<CompiledSchema>> cache;
  const std::lock_guard<std::mutex> lock(mutex);
  if (cache.empty()) fill_narrow_cache();
  auto& slot = cache[schema_path];
  if (slot) return *slot;
  slot = std::make_unique<CompiledSchema>();
  std::error_code ec;
  if (!fs::is_regular_file(schema_path, ec)) return *slot;
  const fs::path p(schema_path);
  slot->name = (p.parent_path().filename() / p.filename()).string();
  slot->json = PlainJson(read_json_file(schema_path));
  valijson::SchemaParser parser;
  valijson::adapters::NlohmannJsonAdapter adapter(slot->json);
  parser.populateSchema(adapter, slot->schema);
  slot->present = true;
  return *slot;
}

// Follows in-document references ("#/definitions/task").
const PlainJson* dereference(const PlainJson& root, const PlainJson* node) {
  for (int hops = 0; node && node->is_object() && node->contains("$ref") && hops < 16; ++hops) {
    const auto& ref = (*node)["$ref"];
    if (!ref.is_string() || ref.get<std::string>().rfind("#", 0) != 0) return nullptr;
    const PlainJson::json_pointer target(ref.get<std::string>().substr(1));
    node = root.contains(target) ? &root[target] : nullptr;
  }
  return node;
}

// The subschema that governs one member of `node`: its "properties", "items" or
// "additionalProperties", or the first oneOf/anyOf branch that names it.
const PlainJson* child_schema(const PlainJson& root, const PlainJson* node,
                              const std::string& key) {
  node = dereference(root, node);
  if (!node || !node->is_object()) return nullptr;
  if (auto p = node->find("properties"); p != node->end() && p->contains(key)) {
    return dereference(root, &(*p)[key]);
  }
  if (auto i = node->find("items"); i != node->end() && i->is_object()) {
    return dereference(root, &*i);
  }
  for (const char* combinator : {"oneOf", "anyOf"}) {
    auto c = node->find(combinator);
    if (c == node->end()) continue;
    for (const auto& branch : *c) {
      const auto* b = dereference(root, &branch);
      if (b && b->contains("properties") && (*b)["properties"].contains(key)) {
        return dereference(root, &(*b)["properties"][key]);
      }
    }
  }
  if (auto a = node->find("additionalProperties"); a != node->end() && a->is_object()) {
    return dereference(root, &*a);
  }
  return nullptr;
}

std::string type_words(const PlainJson& type) {
  const auto one = [](const std::string& t) -> std::string {
    if (t == "string") return "a string";
    if (t == "integer") return "an integer";
    if (t == "number") return "a number";
    if (t == "object") return "an object";
    if (t == "array") return "an array";
    if (t == "boolean") return "true or false";
    return t;
  };
  if (type.is_string()) return one(type.get<std::string>());
  std::vector<std::string> words;
  for (const auto& t : type)
    words.push_back(one(t.get<std::string>()));
  return fmt::format("{}", fmt::join(words, " or "));
}

std::string value_words(const PlainJson& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

bool says(const std::string& text, const char* part) {
  return text.find(part) != std::string::npos;
}

// What the schema expected, in the loaders' words where it can tell; valijson's otherwise.
std::string expectation(const Violation& v, const PlainJson* schema, const Json* value) {
  const std::string& d = v.description;
  const std::string got = value ? ", got " + json_type_name(*value) : "";
  if (says(d, "Missing required property '")) {
    const auto start = d.find('\'') + 1;
    return fmt::format("missing required field \"{}\"", d.substr(start, d.rfind('\'') - start));
  }
  if (says(d, "could not be validated using 'properties'")) {
    const auto start = d.find(": '") + 3;
    return fmt::format("unknown field \"{}\"", d.substr(start, d.rfind('\'') - start));
  }
  // The schemas use {"not": {}} only to forbid a field where it does not belong.
  if (says(d, "'not' constraint")) return "not allowed here";
  if (schema && schema->is_object()) {
    const PlainJson& s = *schema;
    if (says(d, "enum") && s.contains("enum")) {
      std::vector<std::string> names;
      for (const auto& e : s["enum"])
        names.push_back(value_words(e));
      return fmt::format("expected one of: {}{}", fmt::join(names, ", "),
                         value && value->is_string()
                             ? fmt::format(", got \"{}\"", value->get<std::string>())
                             : got);
    }
    if (says(d, "'type'") && s.contains("type")) return "expected " + type_words(s["type"]) + got;
    if (says(d, "'const'") && s.contains("const")) return "expected " + s["const"].dump();
    if (says(d, "no fewer than") && says(d, "characters") && s.contains("minLength")) {
      return s["minLength"] == 1
                 ? std::string("expected a non-empty string")
                 : fmt::format("expected at least {} characters", s["minLength"].dump());
    }
    if (says(d, "no fewer than") && says(d, "elements") && s.contains("minItems")) {
      return fmt::format("expected at least {} entries", s["minItems"].dump());
    }
    if (says(d, "greater than or equal") && s.contains("minimum")) {
      return fmt::format("expected a number at least {}", s["minimum"].dump());
    }
    if (says(d, "greater than") && s.contains("exclusiveMinimum")) {
      return fmt::format("expected a number above {}", s["exclusiveMinimum"].dump());
    }
    if (says(d, "less than or equal") && s.contains("maximum")) {
      return fmt::format("expected a number at most {}", s["maximum"].dump());
    }
    if (says(d, "less than") && s.contains("exclusiveMaximum")) {
      return fmt::format("expected a number below {}", s["exclusiveMaximum"].dump());
    }
    if (says(d, "'pattern'") && s.contains("pattern")) {
      return fmt::format("expected text matching {}", s["pattern"].dump());
    }
  }
  std::string text = d;
  if (!text.empty() && text.back() == '.') text.pop_back();
  return text;
}

}  // namespace

std::vector<std::string> schema_violations(const Json& document, const Json& schema) {
  const PlainJson plain_schema(schema);
  valijson::Schema compiled_schema;
  valijson::SchemaParser parser;
  valijson::adapters::NlohmannJsonAdapter schema_adapter(plain_schema);
  parser.populateSchema(schema_adapter, compiled_schema);
  std::vector<std::string> out;
  for (const auto& v : validate(compiled_schema, PlainJson(document)))
    out.push_back(pointer_text(v.pointer) + ": " + v.description);
  return out;
}

void enforce_schema(const Json& document, const std::string& file, const std::string& schema_path) {
  const CompiledSchema& s = compiled(schema_path);
  if (!s.present) return;
  const auto violations = validate(s.schema, PlainJson(document));
  if (violations.empty()) return;
  // The deepest place is the most specific; among equals, the first valijson found. valijson
  // also reports every enclosing object that failed because of it, which says less.
  const Violation* best = &violations.front();
  for (const auto& v : violations) {
    if (v.pointer.size() > best->pointer.size()) best = &v;
  }
  const PlainJson* node = dereference(s.json, &s.json);
  const Json* value = &document;
  for (const auto& key : best->pointer) {
    node = node ? child_schema(s.json, node, key) : nullptr;
    if (value && value->is_object() && value->contains(key)) {
      value = &(*value)[key];
    } else if (value && value->is_array() && !key.empty() &&
               key.find_first_not_of("0123456789") == std::string::npos &&
               std::stoull(key) < value->size()) {
      value = &(*value)[std::stoull(key)];
    } else {
      value = nullptr;
    }
  }
  throw InputError(file, pointer_text(best->pointer),
                   fmt::format("does not match {}: {}", s.name, expectation(*best, node, value)));
}

std::string topology_schema_path() {
  return data_dir() + "/topologies/schema.json";
}
std::string scenario_schema_path() {
  return data_dir() + "/scenarios/schema.json";
}
std::string model_schema_path() {
  return data_dir() + "/models/schema.json";
}
std::string task_graph_schema_path() {
  return data_dir() + "/docs/task-graph.schema.json";
}
std::string sweep_schema_path() {
  return data_dir() + "/docs/sweep.schema.json";
}

}  // namespace linksim
