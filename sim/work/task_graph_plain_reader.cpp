// The fast task-graph reader (task_graph_placement.hpp): simdjson's On-Demand parser walks the
// text once, with no document tree, and each task's fields are taken as they come. Values that
// repeat across tasks (node names, durations, sizes) are checked once and remembered. It gives
// up (nullopt) on anything the full reader or the schema would refuse, and on anything unusual
// that it does not need to understand (duplicate keys, a number with a fraction, an escaped key,
// a control character in a string), so that it never accepts a graph the full reader refuses and
// never differs from it on one both accept: both place the same RawTasks (task_graph.cpp,
// place_tasks). simdjson checks the text as UTF-8 before the walk, and the walk, which visits
// every value, checks it as JSON.
#include <simdjson.h>

#include <array>
#include <optional>
#include <regex>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "sim/core/units.hpp"
#include "sim/work/task_graph_placement.hpp"

namespace linksim::work::detail {
namespace {

namespace od = simdjson::ondemand;

struct GiveUp {};  // the text is not a plain valid graph: the full reader takes over

const std::regex& duration_pattern() {
  static const std::regex re(kDurationPattern);
  return re;
}
const std::regex& bytes_pattern() {
  static const std::regex re(kBytesPattern);
  return re;
}

template <typename T>
T take(simdjson::simdjson_result<T>&& result) {
  T value;
  if (std::move(result).get(value) != simdjson::SUCCESS) throw GiveUp{};
  return value;
}

// A string value, unescaped. The full reader refuses control characters in strings; an escaped
// one (\n) would be valid JSON, but no id or node name needs it, so the full reader decides.
std::string_view text_of(od::value value) {
  const std::string_view s = take(value.get_string());
  for (const char c : s)
    if (static_cast<unsigned char>(c) < 0x20) throw GiveUp{};
  return s;
}

enum Field : std::uint8_t { id, kind, deps, note, gpu, src, dst, duration, bytes, field_count };

// The key's field; an unknown key, or one written with escapes, gives up.
Field field_of(od::field& f) {
  static constexpr std::array<const char*, field_count> names{
      "id", "kind", "deps", "note", "gpu", "src", "dst", "duration", "bytes"};
  const od::raw_json_string key = f.key();
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (key.unsafe_is_equal(names[i])) return static_cast<Field>(i);
  }
  throw GiveUp{};
}

constexpr unsigned bit(Field f) {
  return 1u << f;
}

// Fields each kind allows (beyond id, kind, deps, note) and requires.
struct KindFields {
  engine::TaskKind kind;
  std::string_view name;
  unsigned fields;
};
constexpr std::array<KindFields, 4> kKinds{{
    {engine::TaskKind::compute, "compute", bit(gpu) | bit(duration)},
    {engine::TaskKind::transfer, "transfer", bit(src) | bit(dst) | bit(bytes)},
    {engine::TaskKind::delay, "delay", bit(duration)},
    {engine::TaskKind::barrier, "barrier", 0},
}};
constexpr unsigned kCommonFields = bit(id) | bit(kind) | bit(deps) | bit(note);

// The tasks as read. String views point into the parser's buffer, which outlives the reader.
class PlainReader {
 public:
  explicit PlainReader(const topo::Topology& topology) : topo_(topology) {}

  void read(od::document& doc);

  std::vector<RawTask>& tasks() { return tasks_; }
  // Task i's dependency names are dep_names_[k] for k in [task_deps_[i], task_deps_[i + 1]).
  std::string_view dep_name(std::size_t k) const { return dep_names_[k]; }
  const std::vector<std::size_t>& task_deps() const { return task_deps_; }
  std::string& description() { return description_; }

 private:
  void read_task(od::object task);
  topo::NodeId node(std::string_view name, bool must_be_gpu);
  double amount(std::string_view text, bool is_duration);

  const topo::Topology& topo_;
  std::string description_;
  std::vector<RawTask> tasks_;
  std::vector<std::string_view> dep_names_;
  std::vector<std::size_t> task_deps_{0};
  std::unordered_map<std::string_view, std::optional<topo::NodeId>> nodes_;
  std::unordered_map<std::string_view, std::optional<double>> durations_;
  std::unordered_map<std::string_view, std::optional<double>> sizes_;
};

void PlainReader::read(od::document& doc) {
  od::object root = take(doc.get_object());
  unsigned seen = 0;  // 1: $schema, 2: description, 4: tasks
  for (auto member : root) {
    od::field f = take(std::move(member));
    const od::raw_json_string key = f.key();
    const unsigned b = key.unsafe_is_equal("$schema")       ? 1u
                       : key.unsafe_is_equal("description") ? 2u
                       : key.unsafe_is_equal("tasks")       ? 4u
                                                            : 0u;
    if (b == 0 || (seen & b)) throw GiveUp{};
    seen |= b;
    if (b == 4) {
      od::array list = take(f.value().get_array());
      for (auto element : list)
        read_task(take(take(std::move(element)).get_object()));
    } else {
      const std::string_view s = text_of(f.value());
      if (b == 2) description_ = s;
    }
  }
  // Nothing may follow the root object: at the end, current_location has no location to give.
  if (!(seen & 4u) || doc.current_location().error() != simdjson::OUT_OF_BOUNDS) throw GiveUp{};
}

void PlainReader::read_task(od::object task) {
  unsigned seen = 0;
  std::array<std::string_view, field_count> text{};
  double byte_count = 0;  // bytes given as an integer; 0 when given as a string
  for (auto member : task) {
    od::field f = take(std::move(member));
    const Field field = field_of(f);
    if (seen & bit(field)) throw GiveUp{};
    seen |= bit(field);
    od::value value = f.value();
    if (field == deps) {
      for (auto element : take(value.get_array()))
        dep_names_.push_back(text_of(take(std::move(element))));
    } else if (field == bytes && take(value.type()) == od::json_type::number) {
      const std::uint64_t count = take(value.get_uint64());
      if (count < 1 || count > 1000000000000000000ull) throw GiveUp{};  // the schema's bounds
      byte_count = static_cast<double>(count);
    } else {
      text[field] = text_of(value);
    }
  }
  if (!(seen & bit(id)) || !(seen & bit(kind)) || text[id].empty()) throw GiveUp{};
  const KindFields* k = nullptr;
  for (const KindFields& candidate : kKinds) {
    if (candidate.name == text[kind]) k = &candidate;
  }
  // Exactly the kind's fields (all required), plus any of the common ones.
  if (!k || (seen & ~kCommonFields) != k->fields) throw GiveUp{};
  RawTask t;
  switch (k->kind) {
    case engine::TaskKind::compute:
      t.kind = WorkKind::compute;
      t.gpu = node(text[gpu], true);
      t.amount = amount(text[duration], true);
      break;
    case engine::TaskKind::delay:
      t.kind = WorkKind::delay;
      t.amount = amount(text[duration], true);
      break;
    case engine::TaskKind::transfer:
      t.amount = byte_count > 0 ? byte_count : amount(text[bytes], false);
      t.src = node(text[src], false);
      t.dst = node(text[dst], false);
      if (t.src == t.dst) throw GiveUp{};
      t.kind = transfer_work(topo_, t.src, t.dst);
      break;
    case engine::TaskKind::barrier:
      break;
  }
  t.id = text[id];
  task_deps_.push_back(dep_names_.size());
  tasks_.push_back(std::move(t));
}

topo::NodeId PlainReader::node(std::string_view name, bool must_be_gpu) {
  auto [it, fresh] = nodes_.try_emplace(name);
  if (fresh) it->second = topo_.find(name);
  if (!it->second) throw GiveUp{};
  if (must_be_gpu && topo_.node(*it->second).kind != topo::NodeKind::gpu) throw GiveUp{};
  return *it->second;
}

// A duration or a size as the full reader takes it (units, bounds, sign) and the schema's
// pattern allows it.
double PlainReader::amount(std::string_view text, bool is_duration) {
  auto& memo = is_duration ? durations_ : sizes_;
  auto [it, fresh] = memo.try_emplace(text);
  if (fresh) {
    bool out_of_bounds = false;
    const auto v = is_duration ? units::parse_time_s(text, &out_of_bounds)
                               : units::parse_bytes(text, &out_of_bounds);
    const bool ok = v && !out_of_bounds &&
                    std::regex_search(text.begin(), text.end(),
                                      is_duration ? duration_pattern() : bytes_pattern()) &&
                    (is_duration ? *v >= 0 : (*v > 0 && *v <= units::kMaxBytes));
    if (ok) it->second = *v;
  }
  if (!it->second) throw GiveUp{};
  return *it->second;
}

// Each task's dependencies as indices, each once in file order. Lists usually name the task
// after the one they named last (a barrier after a step), the same one as the task before (a
// step after a barrier), or the task just before: those are tried first, and the hash table of
// ids is built only when one is not. (Duplicate ids are found by canonical_order's sort.)
bool resolve_dependencies(PlainReader& reader) {
  std::vector<RawTask>& tasks = reader.tasks();
  const std::size_t n = tasks.size();
  std::unordered_map<std::string_view, std::size_t> by_id;
  const auto find = [&](std::string_view name) {
    if (by_id.empty()) {
      by_id.reserve(n);
      for (std::size_t i = 0; i < n; ++i)
        by_id.emplace(tasks[i].id, i);
    }
    const auto it = by_id.find(name);
    return it == by_id.end() ? n : it->second;
  };
  const auto& task_deps = reader.task_deps();
  std::vector<std::size_t> listed_by(n, n);
  std::size_t last = n;  // the task the previous name resolved to
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t k = task_deps[i]; k < task_deps[i + 1]; ++k) {
      const std::string_view name = reader.dep_name(k);
      std::size_t d = n;
      if (last + 1 < n && tasks[last + 1].id == name) {
        d = last + 1;
      } else if (last < n && tasks[last].id == name) {
        d = last;
      } else if (i > 0 && tasks[i - 1].id == name) {
        d = i - 1;
      } else {
        d = find(name);
        if (d == n) return false;
      }
      last = d;
      if (listed_by[d] == i) continue;
      listed_by[d] = i;
      tasks[i].deps.push_back(d);
    }
    if (task_deps[i] < task_deps[i + 1]) last = tasks[i].deps.front();
  }
  return true;
}

// The tasks, their dependencies resolved, and the description; nullopt to give up. The parser's
// buffers, which the names point into while reading, are gone when this returns.
std::optional<std::pair<std::vector<RawTask>, std::string>> read_tasks(
    const std::string& text, const topo::Topology& topology) {
  // simdjson reads SIMDJSON_PADDING bytes past the text's end: it parses a string whose
  // capacity has room in place, and copies any other once.
  std::optional<simdjson::padded_string> copy;
  if (text.capacity() < text.size() + simdjson::SIMDJSON_PADDING) copy.emplace(text);
  const simdjson::padded_string_view padded =
      copy ? simdjson::padded_string_view(copy->data(), copy->size(),
                                          copy->size() + simdjson::SIMDJSON_PADDING)
           : simdjson::padded_string_view(text.data(), text.size(), text.capacity());
  od::parser parser;
  PlainReader reader(topology);
  try {
    od::document doc = take(parser.iterate(padded));
    reader.read(doc);
  } catch (const GiveUp&) {
    return std::nullopt;
  }
  if (!resolve_dependencies(reader)) return std::nullopt;
  return std::pair(std::move(reader.tasks()), std::move(reader.description()));
}

}  // namespace

std::optional<TaskGraph> read_valid_task_graph(const std::string& text,
                                               const topo::Topology& topology, LinkRates rates) {
  auto read = read_tasks(text, topology);
  if (!read) return std::nullopt;
  const std::vector<RawTask>& tasks = read->first;
  bool duplicate_ids = false;
  const std::vector<std::size_t> order = canonical_order(tasks, &duplicate_ids);
  if (duplicate_ids || order.size() != tasks.size()) return std::nullopt;
  try {
    TaskGraph graph =
        place_tasks(tasks, order, topology, rates,
                    [](std::size_t, const char*, const std::string&) { throw GiveUp{}; });
    graph.description = std::move(read->second);
    return graph;
  } catch (const GiveUp&) {
    return std::nullopt;
  }
}

}  // namespace linksim::work::detail
