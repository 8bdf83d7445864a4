// The fast task-graph reader (task_graph_placement.hpp): nlohmann's SAX parser feeds a small
// state machine that keeps each task's fields as they stream past, with no document tree. Values
// that repeat across tasks (node names, durations, sizes) are checked once and remembered. It
// gives up (nullopt) on anything the full reader or the schema would refuse, and on anything
// unusual that it does not need to understand (duplicate keys, a number with a fraction), so
// that it never accepts a graph the full reader refuses and never differs from it on one both
// accept: both place the same RawTasks (task_graph.cpp, place_tasks).
#include <array>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <string_view>
#include <unordered_map>

#include "sim/core/json_view.hpp"
#include "sim/core/units.hpp"
#include "sim/work/task_graph_placement.hpp"

namespace linksim::work::detail {
namespace {

struct GiveUp {};

const std::regex& duration_pattern() {
  static const std::regex re(kDurationPattern);
  return re;
}
const std::regex& bytes_pattern() {
  static const std::regex re(kBytesPattern);
  return re;
}  // the text is not a plain valid graph: the full reader takes over

enum Field : std::uint8_t { id, kind, deps, note, gpu, src, dst, duration, bytes, field_count };

std::optional<Field> field_of(std::string_view key) {
  static constexpr std::array<std::string_view, field_count> names{
      "id", "kind", "deps", "note", "gpu", "src", "dst", "duration", "bytes"};
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] == key) return static_cast<Field>(i);
  }
  return std::nullopt;
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

class PlainReader final : public nlohmann::json_sax<Json> {
 public:
  explicit PlainReader(const topo::Topology& topology) : topo_(topology) {}

  std::vector<RawTask>& tasks() { return tasks_; }
  // Dependency k of all tasks is dep_text_[dep_end_[k - 1] .. dep_end_[k]) (from 0 for k = 0);
  // task i's are k in [task_deps_[i], task_deps_[i + 1]).
  std::string_view dep_name(std::size_t k) const {
    const std::size_t from = k == 0 ? 0 : dep_end_[k - 1];
    return std::string_view(dep_text_).substr(from, dep_end_[k] - from);
  }
  const std::vector<std::size_t>& task_deps() const { return task_deps_; }
  void drop_dep_names() {
    std::string().swap(dep_text_);
    std::vector<std::size_t>().swap(dep_end_);
  }
  std::string& description() { return description_; }
  bool complete() const { return state_ == State::done && saw_tasks_; }

  bool null() override { return false; }
  bool boolean(bool /*value*/) override { return false; }
  bool number_float(number_float_t /*value*/, const string_t& /*text*/) override { return false; }
  bool binary(binary_t& /*value*/) override { return false; }
  bool number_integer(number_integer_t value) override {
    if (value < 0) return false;
    return number_unsigned(static_cast<number_unsigned_t>(value));
  }
  bool number_unsigned(number_unsigned_t value) override {
    if (state_ != State::task_value || field_ != bytes) return false;
    if (value < 1 || value > 1000000000000000000ull) return false;  // the schema's bounds
    byte_count_ = static_cast<double>(value);
    state_ = State::task;
    return true;
  }
  bool string(string_t& value) override;
  bool start_object(std::size_t /*size*/) override;
  bool key(string_t& name) override;
  bool end_object() override;
  bool start_array(std::size_t /*size*/) override;
  bool end_array() override;
  bool parse_error(std::size_t /*position*/, const std::string& /*token*/,
                   const nlohmann::detail::exception& /*error*/) override {
    return false;
  }

 private:
  enum class State : std::uint8_t { start, root, root_value, tasks, task, task_value, deps, done };

  void finish_task();
  topo::NodeId node(const std::string& name, bool must_be_gpu);
  double amount(const std::string& text, bool is_duration);

  const topo::Topology& topo_;
  State state_ = State::start;
  std::string root_key_;
  std::string description_;
  unsigned root_seen_ = 0;  // 1: $schema, 2: description, 4: tasks
  bool saw_tasks_ = false;
  Field field_ = id;
  unsigned seen_ = 0;  // fields of the current task
  std::array<std::string, field_count> text_;
  double byte_count_ = 0;  // bytes given as an integer; 0 when given as a string
  std::vector<RawTask> tasks_;
  std::string dep_text_;
  std::vector<std::size_t> dep_end_;
  std::vector<std::size_t> task_deps_{0};
  std::unordered_map<std::string, std::optional<topo::NodeId>> nodes_;
  std::unordered_map<std::string, std::optional<double>> durations_;
  std::unordered_map<std::string, std::optional<double>> sizes_;
};

bool PlainReader::start_object(std::size_t /*size*/) {
  if (state_ == State::start) {
    state_ = State::root;
    return true;
  }
  if (state_ != State::tasks) return false;
  state_ = State::task;
  seen_ = 0;
  byte_count_ = 0;
  return true;
}

bool PlainReader::key(string_t& name) {
  if (state_ == State::root) {
    const unsigned b = name == "$schema"       ? 1u
                       : name == "description" ? 2u
                       : name == "tasks"       ? 4u
                                               : 0u;
    if (b == 0 || (root_seen_ & b)) return false;
    root_seen_ |= b;
    root_key_ = name;
    state_ = State::root_value;
    return true;
  }
  if (state_ != State::task) return false;
  const auto f = field_of(name);
  if (!f || (seen_ & bit(*f))) return false;
  seen_ |= bit(*f);
  field_ = *f;
  state_ = State::task_value;
  return true;
}

bool PlainReader::string(string_t& value) {
  if (state_ == State::root_value) {
    if (root_key_ == "tasks") return false;
    if (root_key_ == "description") description_ = std::move(value);
    state_ = State::root;
    return true;
  }
  if (state_ == State::deps) {
    dep_text_ += value;
    dep_end_.push_back(dep_text_.size());
    return true;
  }
  if (state_ != State::task_value || field_ == deps) return false;
  text_[field_] = std::move(value);
  state_ = State::task;
  return true;
}

bool PlainReader::start_array(std::size_t /*size*/) {
  if (state_ == State::root_value && root_key_ == "tasks") {
    state_ = State::tasks;
    saw_tasks_ = true;
    return true;
  }
  if (state_ == State::task_value && field_ == deps) {
    state_ = State::deps;
    return true;
  }
  return false;
}

bool PlainReader::end_array() {
  if (state_ == State::deps) {
    state_ = State::task;
    return true;
  }
  if (state_ != State::tasks) return false;
  state_ = State::root;
  return true;
}

bool PlainReader::end_object() {
  if (state_ == State::root) {
    state_ = State::done;
    return true;
  }
  if (state_ != State::task) return false;
  try {
    finish_task();
  } catch (const GiveUp&) {
    return false;
  }
  state_ = State::tasks;
  return true;
}

topo::NodeId PlainReader::node(const std::string& name, bool must_be_gpu) {
  auto [it, fresh] = nodes_.try_emplace(name);
  if (fresh) it->second = topo_.find(name);
  if (!it->second) throw GiveUp{};
  if (must_be_gpu && topo_.node(*it->second).kind != topo::NodeKind::gpu) throw GiveUp{};
  return *it->second;
}

// A duration or a size as the full reader takes it (units, bounds, sign) and the schema's
// pattern allows it.
double PlainReader::amount(const std::string& text, bool is_duration) {
  auto& memo = is_duration ? durations_ : sizes_;
  auto [it, fresh] = memo.try_emplace(text);
  if (fresh) {
    bool out_of_bounds = false;
    const auto v = is_duration ? units::parse_time_s(text, &out_of_bounds)
                               : units::parse_bytes(text, &out_of_bounds);
    const bool ok = v && !out_of_bounds &&
                    std::regex_search(text, is_duration ? duration_pattern() : bytes_pattern()) &&
                    (is_duration ? *v >= 0 : (*v > 0 && *v <= units::kMaxBytes));
    if (ok) it->second = *v;
  }
  if (!it->second) throw GiveUp{};
  return *it->second;
}

void PlainReader::finish_task() {
  if (!(seen_ & bit(id)) || !(seen_ & bit(kind)) || text_[id].empty()) throw GiveUp{};
  const KindFields* k = nullptr;
  for (const KindFields& candidate : kKinds) {
    if (candidate.name == text_[kind]) k = &candidate;
  }
  // Exactly the kind's fields (all required), plus any of the common ones.
  if (!k || (seen_ & ~kCommonFields) != k->fields) throw GiveUp{};
  RawTask t;
  t.kind = k->kind;
  switch (t.kind) {
    case engine::TaskKind::compute:
      t.gpu = node(text_[gpu], true);
      t.amount = amount(text_[duration], true);
      break;
    case engine::TaskKind::delay:
      t.amount = amount(text_[duration], true);
      break;
    case engine::TaskKind::transfer:
      t.amount = byte_count_ > 0 ? byte_count_ : amount(text_[bytes], false);
      t.src = node(text_[src], false);
      t.dst = node(text_[dst], false);
      if (t.src == t.dst) throw GiveUp{};
      break;
    case engine::TaskKind::barrier:
      break;
  }
  t.id = std::move(text_[id]);
  task_deps_.push_back(dep_end_.size());
  tasks_.push_back(std::move(t));
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

}  // namespace

std::optional<TaskGraph> read_valid_task_graph(const std::string& text,
                                               const topo::Topology& topology, LinkRates rates) {
  PlainReader reader(topology);
  if (!Json::sax_parse(text, &reader) || !reader.complete()) return std::nullopt;
  if (!resolve_dependencies(reader)) return std::nullopt;
  reader.drop_dep_names();
  const std::vector<RawTask>& tasks = reader.tasks();
  bool duplicate_ids = false;
  const std::vector<std::size_t> order = canonical_order(tasks, &duplicate_ids);
  if (duplicate_ids || order.size() != tasks.size()) return std::nullopt;
  try {
    TaskGraph graph =
        place_tasks(tasks, order, topology, rates,
                    [](std::size_t, const char*, const std::string&) { throw GiveUp{}; });
    graph.description = std::move(reader.description());
    return graph;
  } catch (const GiveUp&) {
    return std::nullopt;
  }
}

}  // namespace linksim::work::detail
