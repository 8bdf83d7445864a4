#include "sim/work/task_graph.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <unordered_map>

#include "sim/coll/algorithm_registry.hpp"
#include "sim/core/error.hpp"
#include "sim/core/memory_bound.hpp"
#include "sim/core/schema_check.hpp"
#include "sim/core/text_file.hpp"
#include "sim/core/units.hpp"
#include "sim/work/task_graph_loops.hpp"
#include "sim/work/task_graph_placement.hpp"

namespace linksim::work {
namespace {

using detail::CollectiveTask;
using detail::RawTask;

// 99992 -> "99,992", for counts in messages.
std::string with_thousands(std::size_t n) {
  const std::string digits = std::to_string(n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::optional<engine::TaskKind> kind_from_string(const std::string& s) {
  for (auto k : {engine::TaskKind::compute, engine::TaskKind::transfer, engine::TaskKind::delay,
                 engine::TaskKind::barrier}) {
    if (engine::to_string(k) == s) return k;
  }
  return std::nullopt;
}

// Task ids to task indices, for a list whose size is known first: open addressing over a
// power-of-two table of (hash tag, index) words, no allocation per id. A million-task graph
// spent a sixth of its load in std::unordered_map's nodes.
class IdIndex {
 public:
  explicit IdIndex(const std::vector<RawTask>& tasks) : tasks_(tasks) {}
  // Room for `count` ids at a load of at most 0.7.
  void reserve(std::size_t count) {
    std::size_t size = 16;
    while (size * 7 < count * 10)
      size *= 2;
    slots_.assign(size, 0);
  }
  // The task with id `id`, or tasks.size().
  std::size_t find(std::string_view id) const {
    const std::uint64_t h = std::hash<std::string_view>{}(id);
    for (std::size_t at = h & (slots_.size() - 1);; at = (at + 1) & (slots_.size() - 1)) {
      const std::uint64_t slot = slots_[at];
      if (slot == 0) return tasks_.size();
      if (matches(slot, h, id)) return (slot & kIndexMask) - 1;
    }
  }
  // Adds task i (of the reserved count) unless a task of its id is there: returns that one's
  // index, or i.
  std::size_t insert(std::size_t i) {
    const std::string_view id = tasks_[i].id;
    const std::uint64_t h = std::hash<std::string_view>{}(id);
    for (std::size_t at = h & (slots_.size() - 1);; at = (at + 1) & (slots_.size() - 1)) {
      std::uint64_t& slot = slots_[at];
      if (slot == 0) {
        slot = (h & ~kIndexMask) | (i + 1);
        return i;
      }
      if (matches(slot, h, id)) return (slot & kIndexMask) - 1;
    }
  }

 private:
  // Low 32 bits: index + 1 (0: empty); high 32: the hash's, to skip most string compares.
  static constexpr std::uint64_t kIndexMask = 0xffffffffu;
  bool matches(std::uint64_t slot, std::uint64_t h, std::string_view id) const {
    return (slot & ~kIndexMask) == (h & ~kIndexMask) && tasks_[(slot & kIndexMask) - 1].id == id;
  }
  const std::vector<RawTask>& tasks_;
  std::vector<std::uint64_t> slots_;
};

// The full reader: every check, every message. A task with "for" (the repeat form) stands for
// one task per binding of its loops, and its string fields are templates over them; it is
// expanded straight into RawTasks, so a ring of a million transfers written in three tasks costs
// no document tree of a million objects.
class Loader {
 public:
  Loader(const JsonView& root, const topo::Topology& topology, LinkRates rates)
      : root_(root), topo_(topology), rates_(rates) {}

  TaskGraph load();

 private:
  // A string field of a copy, or an entry's id, by its place in the document: read once.
  struct Template {
    std::string pattern;
    bool plain = false;                              // no braces: the pattern is the text
    std::optional<topo::CompiledTemplate> compiled;  // none: expand_template says what is wrong
  };
  // What the copies of a form share, kept while they are read (for a repeated task, also for
  // its messages): the fields, looked up once, and the kind, checked once.
  struct Fields {
    std::optional<JsonView> id, gpu, src, dst, bytes, duration, gpus;
    std::vector<JsonView> gpu_list;
    bool checked = false;
    bool is_collective = false;
    engine::TaskKind task_kind = engine::TaskKind::barrier;
    CollectiveTask collective;  // op, algorithm, protocol (gpus are per copy)
    std::unordered_map<const Json*, Template> templates;
  };
  // The "deps" entries of a form that loops or has an entry that does, each with its own loops
  // when it is an object (its "id" then repeats for each of their bindings).
  struct RepeatedDeps {
    std::vector<JsonView> entries;
    std::vector<std::optional<detail::Loops>> loops;
    // Per entry with loops: the variables its id may use (the task's, then its own).
    std::vector<std::vector<std::string>> names;
  };
  // A task as the file writes it. Small for a task written once (a file may hold a million).
  struct Form {
    explicit Form(const JsonView& v) : view(v) {}
    JsonView view;
    std::unique_ptr<detail::Loops> loops;  // none: one task, its strings taken as written
    std::uint64_t copies = 1;
    std::unique_ptr<RepeatedDeps> deps;  // none: "deps" is a plain list, read as it is
    std::unique_ptr<Fields> fields;
  };
  // Which form and binding each task came from, for messages.
  struct Origin {
    std::uint32_t form = 0;
    std::uint32_t binding = 0;
  };

  std::string label(const Origin& o, const std::string& id) const;
  [[noreturn]] void fail_task(const JsonView& at, const Origin& o, const std::string& id,
                              const std::string& msg) const {
    at.fail(fmt::format("task {}: {}", label(o, id), msg));
  }
  // A string field: for a repeated task, expanded with the current binding (values_).
  std::string text(const JsonView& v, const Origin& o, const std::string& id);
  // The template at `v` (a string) of form `f`, over `names`, expanded with values_.
  topo::TemplateResult expand(Form& f, const JsonView& v, const std::vector<std::string>& names);
  // A duration or size string of a repeated task, expanded, then read by `read` as the field
  // itself would be, at the field's place; a message that it is wrong names the task.
  template <class Read>
  double read_expanded(const JsonView& v, const Origin& o, const std::string& id, Read read) {
    const Json value = text(v, o, id);
    try {
      return read(JsonView(value, v.file(), v.pointer()));
    } catch (const InputError& e) {
      throw InputError(e.file(), e.location(),
                       fmt::format("task {}: {}", label(o, id), e.message()));
    }
  }
  // A field of the form, looked up on its first copy (a missing one fails there).
  static const JsonView& field(const Form& f, std::optional<JsonView>& slot, const char* key) {
    if (!slot) slot = f.view.at(key);
    return *slot;
  }
  void count_forms(const std::vector<JsonView>& list);
  void check_form(Form& f, const Origin& o, const std::string& id);
  topo::NodeId endpoint(const JsonView& v, const std::string& name, const Origin& o,
                        const std::string& id) const;
  double read_bytes(const JsonView& b, const Origin& o, const std::string& id);
  void read_collective(Form& f, RawTask& t, const Origin& o);
  void read_task(Form& f, const Origin& o);
  std::size_t find_task(std::string_view name, std::size_t task);
  void read_deps(Form& f, const Origin& o, std::size_t task, std::vector<std::size_t>& listed_by);
  [[noreturn]] void fail_cycle(const std::vector<std::size_t>& order) const;

  JsonView root_;
  const topo::Topology& topo_;
  LinkRates rates_;
  std::vector<Form> forms_;
  std::uint64_t total_tasks_ = 0;
  std::vector<RawTask> tasks_;
  std::vector<Origin> origins_;  // by task
  IdIndex by_id_{tasks_};
  std::size_t last_ = SIZE_MAX;       // the task the last dependency named (find_task)
  std::vector<std::int64_t> values_;  // the current binding: the task's variables, then an entry's
};

std::string Loader::label(const Origin& o, const std::string& id) const {
  const Form& f = forms_[o.form];
  if (!f.loops) return fmt::format("\"{}\"", id);
  const std::string pattern =
      f.fields && f.fields->id && f.fields->id->is_string() ? f.fields->id->as_string() : id;
  return fmt::format("\"{}\" ({})", pattern, f.loops->describe(o.binding));
}

std::string Loader::text(const JsonView& v, const Origin& o, const std::string& id) {
  Form& f = forms_[o.form];
  if (!f.loops) return v.as_string();
  topo::TemplateResult r = expand(f, v, f.loops->names);
  if (!r.error.empty()) fail_task(v, o, id, r.error);
  return std::move(r.text);
}

topo::TemplateResult Loader::expand(Form& f, const JsonView& v,
                                    const std::vector<std::string>& names) {
  auto [it, fresh] = f.fields->templates.try_emplace(&v.raw());
  Template& t = it->second;
  if (fresh) {
    t.pattern = v.as_string();
    t.plain = t.pattern.find_first_of("{}") == std::string::npos;
    if (!t.plain) t.compiled = topo::CompiledTemplate::compile(t.pattern, names);
  }
  topo::TemplateResult r;
  if (t.plain) {
    r.text = t.pattern;
    return r;
  }
  if (t.compiled && t.compiled->expand(values_, r.text)) return r;
  topo::TemplateVars vars;  // the slow way, which says what is wrong
  for (std::size_t k = 0; k < names.size(); ++k)
    vars[names[k]] = values_[k];
  return topo::expand_template(t.pattern, vars);
}

// Reads every "for" (and every dependency entry's) and bounds what they make in all, before
// anything is expanded. Anything else wrong with a task is left to read_task, in file order.
void Loader::count_forms(const std::vector<JsonView>& list) {
  std::uint64_t deps_total = 0;
  forms_.reserve(list.size());
  for (std::size_t i = 0; i < list.size(); ++i) {
    const JsonView& v = list[i];
    Form f(v);
    std::uint64_t deps_each = 0;
    if (v.is_object()) {
      if (auto loops = v.get("for")) {
        f.loops = std::make_unique<detail::Loops>(detail::read_loops(*loops));
        f.copies = f.loops->count();
      }
      if (auto deps = v.get("deps"); deps && deps->is_array()) {
        RepeatedDeps r;
        r.entries = deps->elements();
        bool any_loops = false;
        for (const JsonView& d : r.entries) {
          std::optional<detail::Loops> loops;
          std::vector<std::string> names;
          if (d.is_object()) {
            d.expect_only({"for", "id"});
            loops = detail::read_loops(d.at("for"), f.loops.get());
            (void)d.at("id");
            if (f.loops) names = f.loops->names;
            names.insert(names.end(), loops->names.begin(), loops->names.end());
            any_loops = true;
          }
          deps_each = detail::saturating_sum(deps_each, loops ? loops->count() : 1);
          r.loops.push_back(std::move(loops));
          r.names.push_back(std::move(names));
        }
        if (f.loops || any_loops) f.deps = std::make_unique<RepeatedDeps>(std::move(r));
      }
    }
    total_tasks_ = detail::saturating_sum(total_tasks_, f.copies);
    deps_total =
        detail::saturating_sum(deps_total, detail::saturating_product(f.copies, deps_each));
    // Only loops are refused: tasks written out one by one cost what the file itself does (and
    // the fast reader takes any number of them), but they count toward the totals.
    if (f.loops && total_tasks_ > detail::kMaxExpandedTasks) {
      v.at("for").fail(
          fmt::format("the graph would have {} tasks with this one's copies; expected at most {}",
                      total_tasks_, detail::kMaxExpandedTasks));
    }
    if (f.deps && deps_total > detail::kMaxExpandedDeps) {
      v.at("deps").fail(
          fmt::format("the graph would have {} dependencies with this task's; expected at most {}",
                      deps_total, detail::kMaxExpandedDeps));
    }
    forms_.push_back(std::move(f));
  }
}

topo::NodeId Loader::endpoint(const JsonView& v, const std::string& name, const Origin& o,
                              const std::string& id) const {
  const auto node = topo_.find(name);
  if (!node) {
    fail_task(
        v, o, id,
        fmt::format("unknown endpoint \"{}\": no such node in topology \"{}\"", name, topo_.name));
  }
  return *node;
}

double Loader::read_bytes(const JsonView& b, const Origin& o, const std::string& id) {
  double bytes = 0;
  if (b.is_number()) {
    // A whole number past 64 bits is read as a double: it is too large (refused below), not a
    // fraction.
    const bool past_limit = b.raw().get<double>() > units::kMaxBytes;
    if (!b.raw().is_number_integer() && !past_limit) {
      fail_task(b, o, id, "bytes must be an integer or a size such as \"10 GB\"");
    }
    bytes = past_limit ? b.raw().get<double>() : static_cast<double>(b.as_integer());
  } else if (forms_[o.form].loops && b.is_string()) {
    bytes = read_expanded(b, o, id, [](const JsonView& e) { return e.as_bytes(); });
  } else {
    bytes = b.as_bytes();
  }
  if (!(bytes > 0)) {
    fail_task(b, o, id, fmt::format("bytes must be positive, got {}", b.raw().dump()));
  }
  if (bytes > units::kMaxBytes) {
    fail_task(b, o, id,
              fmt::format("bytes {} is above the 1e18 (1 EB) linksim accepts", b.raw().dump()));
  }
  return bytes;
}

// The kind and which fields it takes: checked on a form's first copy, the same for the rest.
void Loader::check_form(Form& f, const Origin& o, const std::string& id) {
  const JsonView& v = f.view;
  const JsonView kind_view = v.at("kind");
  const auto with_task = [&](const std::initializer_list<std::string_view> allowed) {
    try {
      v.expect_only(allowed);
    } catch (const InputError& e) {  // add the task to the message
      throw InputError(e.file(), e.location(),
                       fmt::format("task {}: {}", label(o, id), e.message()));
    }
  };
  if (kind_view.as_string() == "collective") {
    f.fields->is_collective = true;
    with_task(
        {"id", "kind", "deps", "op", "bytes", "gpus", "algorithm", "protocol", "note", "for"});
    CollectiveTask& c = f.fields->collective;
    const JsonView op = v.at("op");
    const auto parsed = coll::op_from_string(op.as_string());
    if (!parsed || coll::to_string(*parsed) != op.as_string()) {
      fail_task(op, o, id,
                fmt::format("unknown op \"{}\"; expected one of: {}", op.as_string(),
                            fmt::join(coll::op_names(), ", ")));
    }
    c.op = *parsed;
    f.fields->checked = true;
    return;  // the rest in read_collective
  }
  const auto kind = kind_from_string(kind_view.as_string());
  if (!kind) {
    fail_task(kind_view, o, id,
              fmt::format("unknown kind \"{}\"; expected one of: compute, transfer, delay, "
                          "barrier, collective",
                          kind_view.as_string()));
  }
  f.fields->task_kind = *kind;
  switch (f.fields->task_kind) {
    case engine::TaskKind::compute:
      with_task({"id", "kind", "deps", "gpu", "duration", "note", "for"});
      break;
    case engine::TaskKind::transfer:
      with_task({"id", "kind", "deps", "src", "dst", "bytes", "note", "for"});
      break;
    case engine::TaskKind::delay:
      with_task({"id", "kind", "deps", "duration", "note", "for"});
      break;
    case engine::TaskKind::barrier:
      with_task({"id", "kind", "deps", "note", "for"});
      break;
  }
  f.fields->checked = true;
}

// op, bytes, gpus (two or more distinct GPUs) and optionally algorithm and protocol, spelled as
// the scenario format spells them.
void Loader::read_collective(Form& f, RawTask& t, const Origin& o) {
  const JsonView& v = f.view;
  CollectiveTask c;
  c.op = f.fields->collective.op;
  t.amount = read_bytes(field(f, f.fields->bytes, "bytes"), o, t.id);
  if (!f.fields->gpus) {
    f.fields->gpus = v.at("gpus");
    f.fields->gpu_list = f.fields->gpus->elements();
  }
  if (f.fields->gpu_list.size() < 2) {
    fail_task(*f.fields->gpus, o, t.id,
              fmt::format("a collective needs at least 2 GPUs, got {}", f.fields->gpu_list.size()));
  }
  for (const JsonView& m : f.fields->gpu_list) {
    const std::string name = text(m, o, t.id);
    const topo::NodeId g = endpoint(m, name, o, t.id);
    if (topo_.node(g).kind != topo::NodeKind::gpu) {
      fail_task(m, o, t.id, fmt::format("\"{}\" is not a GPU", name));
    }
    if (std::find(c.gpus.begin(), c.gpus.end(), g) != c.gpus.end()) {
      fail_task(m, o, t.id, fmt::format("GPU \"{}\" is listed twice", name));
    }
    c.gpus.push_back(g);
  }
  if (o.binding == 0) {
    if (auto a = v.get("algorithm")) {
      const auto& registry = coll::AlgorithmRegistry::builtin();
      const std::string name = a->as_string();
      f.fields->collective.algorithm = registry.find(name);
      if (!f.fields->collective.algorithm || f.fields->collective.algorithm->name() != name) {
        fail_task(*a, o, t.id, registry.unknown_name_message(name) + " (spelled exactly so)");
      }
    }
    if (auto p = v.get("protocol")) {
      const std::string name = p->as_string();
      f.fields->collective.protocol = coll::protocol_from_string(name);
      if (!f.fields->collective.protocol ||
          coll::to_string(*f.fields->collective.protocol) != name) {
        fail_task(*p, o, t.id,
                  fmt::format("unknown protocol \"{}\"; expected one of LL, LL128, Simple "
                              "(spelled exactly so)",
                              name));
      }
    }
  }
  c.algorithm = f.fields->collective.algorithm;
  c.protocol = f.fields->collective.protocol;
  t.collective = std::make_unique<CollectiveTask>(std::move(c));
}

void Loader::read_task(Form& f, const Origin& o) {
  const JsonView& v = f.view;
  if (f.loops) {
    values_.resize(f.loops->names.size());
    f.loops->bind(o.binding, values_);
  }
  if (!f.fields) f.fields = std::make_unique<Fields>();
  if (!f.fields->id) f.fields->id = v.at("id");
  std::string id = text(*f.fields->id, o, f.fields->id->as_string());
  if (id.empty()) {
    if (f.loops) fail_task(*f.fields->id, o, id, "task id must not be empty");
    f.fields->id->fail("task id must not be empty");
  }
  // In place, so that the id is in the table once looked up.
  RawTask& t = tasks_.emplace_back();
  t.id = std::move(id);
  origins_.push_back(o);
  if (const std::size_t seen = by_id_.insert(tasks_.size() - 1); seen != tasks_.size() - 1) {
    const Origin& first = origins_[seen];
    const Form& ff = forms_[first.form];
    const std::string where =
        ff.loops ? fmt::format("/tasks/{}, {}", first.form, ff.loops->describe(first.binding))
                 : fmt::format("/tasks/{}", first.form);
    const std::string msg = fmt::format("duplicate task id \"{}\" (first at {})", t.id, where);
    if (f.loops) fail_task(*f.fields->id, o, t.id, msg);
    f.fields->id->fail(msg);
  }
  if (!f.fields->checked) check_form(f, o, t.id);
  if (f.fields->is_collective) {
    read_collective(f, t, o);
  } else {
    const engine::TaskKind kind = f.fields->task_kind;
    t.kind = kind == engine::TaskKind::compute ? WorkKind::compute
             : kind == engine::TaskKind::delay ? WorkKind::delay
                                               : WorkKind::barrier;
    if (kind == engine::TaskKind::compute || kind == engine::TaskKind::delay) {
      const JsonView& d = field(f, f.fields->duration, "duration");
      t.amount = f.loops && d.is_string()
                     ? read_expanded(d, o, t.id, [](const JsonView& e) { return e.as_time_s(); })
                     : d.as_time_s();
      if (t.amount < 0) fail_task(d, o, t.id, "duration must not be negative");
    }
    if (kind == engine::TaskKind::compute) {
      const std::string name = text(field(f, f.fields->gpu, "gpu"), o, t.id);
      t.gpu = endpoint(*f.fields->gpu, name, o, t.id);
      if (topo_.node(t.gpu).kind != topo::NodeKind::gpu) {
        fail_task(*f.fields->gpu, o, t.id, fmt::format("\"{}\" is not a GPU", name));
      }
    }
    if (kind == engine::TaskKind::transfer) {
      t.amount = read_bytes(field(f, f.fields->bytes, "bytes"), o, t.id);
      const JsonView& src = field(f, f.fields->src, "src");
      t.src = endpoint(src, text(src, o, t.id), o, t.id);
      const JsonView& dst = field(f, f.fields->dst, "dst");
      t.dst = endpoint(dst, text(dst, o, t.id), o, t.id);
      if (t.src == t.dst) fail_task(*f.fields->dst, o, t.id, "src and dst are the same node");
      t.kind = detail::transfer_work(topo_, t.src, t.dst);
    }
  }
}

// The task named `name`, or tasks_.size(). Lists usually name the task after the one named last
// (a barrier after a step), the same one as the task before (a step after a barrier) or the task
// just before: those are tried before the hash table, as the fast reader does.
std::size_t Loader::find_task(std::string_view name, std::size_t task) {
  const std::size_t n = tasks_.size();
  std::size_t d = n;
  if (last_ + 1 < n && tasks_[last_ + 1].id == name) {
    d = last_ + 1;
  } else if (last_ < n && tasks_[last_].id == name) {
    d = last_;
  } else if (task > 0 && tasks_[task - 1].id == name) {
    d = task - 1;
  } else {
    d = by_id_.find(name);
  }
  if (d < n) last_ = d;
  return d;
}

// Task `task`'s dependencies, each once, in file order (an entry with "for" in its loop order);
// listed_by[d] == task marks d as listed already.
void Loader::read_deps(Form& f, const Origin& o, std::size_t task,
                       std::vector<std::size_t>& listed_by) {
  RawTask& t = tasks_[task];
  const std::size_t task_vars = f.loops ? f.loops->names.size() : 0;
  values_.resize(task_vars);
  if (f.loops) f.loops->bind(o.binding, values_);
  // `loops` and `b`: the entry's, which the message names.
  const auto add = [&](const JsonView& at, const std::string& name, const detail::Loops* loops,
                       std::uint64_t b) {
    const std::size_t d = find_task(name, task);
    if (d == tasks_.size()) {
      fail_task(at, o, t.id,
                fmt::format("dependency \"{}\"{} is not a task id", name,
                            loops ? " (" + loops->describe(b) + ")" : ""));
    }
    if (listed_by[d] == task) return;
    listed_by[d] = task;
    t.deps.push_back(d);
  };
  if (!f.deps) {  // a plain list (or not a list: say so)
    if (auto deps = f.view.get("deps")) {
      for (const JsonView& d : deps->elements())
        add(d, d.as_string(), nullptr, 0);
    }
    if (!t.deps.empty()) last_ = t.deps.front();
    return;
  }
  for (std::size_t k = 0; k < f.deps->entries.size(); ++k) {
    const JsonView& d = f.deps->entries[k];
    if (!f.deps->loops[k]) {
      add(d, text(d, o, t.id), nullptr, 0);
      continue;
    }
    // An entry with its own loops: its id is a template over them (and the task's).
    const detail::Loops& loops = *f.deps->loops[k];
    const JsonView id = d.at("id");
    values_.resize(task_vars + loops.names.size());
    for (std::uint64_t b = 0; b < loops.count(); ++b) {
      loops.bind(b, std::span(values_).subspan(task_vars));
      topo::TemplateResult r = expand(f, id, f.deps->names[k]);
      if (!r.error.empty()) fail_task(id, o, t.id, r.error + " (" + loops.describe(b) + ")");
      add(id, r.text, &loops, b);
    }
    values_.resize(task_vars);
  }
  if (!t.deps.empty()) last_ = t.deps.front();
}

// A leftover after the canonical order means a cycle: walk unfinished dependencies from a
// leftover task until one repeats, and name that loop.
void Loader::fail_cycle(const std::vector<std::size_t>& order) const {
  const std::size_t n = tasks_.size();
  std::vector<bool> placed(n, false);
  for (std::size_t i : order)
    placed[i] = true;
  // Start from the leftover task with the lowest id, so the message is stable.
  std::size_t start = n;
  for (std::size_t i = 0; i < n; ++i) {
    if (!placed[i] && (start == n || tasks_[i].id < tasks_[start].id)) start = i;
  }
  std::vector<std::size_t> walk;
  std::vector<std::size_t> seen_at(n, n);
  std::size_t cur = start;
  while (seen_at[cur] == n) {
    seen_at[cur] = walk.size();
    walk.push_back(cur);
    std::size_t next = n;
    for (std::size_t d : tasks_[cur].deps) {  // lowest-id unfinished dependency
      if (!placed[d] && (next == n || tasks_[d].id < tasks_[next].id)) next = d;
    }
    cur = next;
  }
  // The loop is walk[seen_at[cur]..]; each task there depends on the next. Show it in
  // execution order: a -> b means b depends on a.
  std::vector<std::size_t> loop;
  for (std::size_t k = walk.size(); k-- > seen_at[cur];)
    loop.push_back(walk[k]);
  // Start the loop at its lowest id, and report it at that task's "deps".
  const auto first = std::min_element(loop.begin(), loop.end(), [&](std::size_t a, std::size_t b) {
    return tasks_[a].id < tasks_[b].id;
  });
  std::rotate(loop.begin(), first, loop.end());
  // A long loop is named by its first kCycleTasksShown tasks and a count: all 100,000 of a
  // generated graph's would make a line of a megabyte.
  constexpr std::size_t kCycleTasksShown = 8;
  std::vector<std::string> names;
  for (std::size_t k = 0; k < std::min(loop.size(), kCycleTasksShown); ++k)
    names.push_back(tasks_[loop[k]].id);
  std::string cycle = fmt::format("{}", fmt::join(names, " -> "));
  if (loop.size() > kCycleTasksShown) {
    cycle += fmt::format(" -> ... and {} more", with_thousands(loop.size() - kCycleTasksShown));
  } else {
    cycle += " -> " + names.front();
  }
  fail_task(forms_[origins_[loop.front()].form].view.at("deps"), origins_[loop.front()],
            tasks_[loop.front()].id, "dependency cycle: " + cycle);
}

TaskGraph Loader::load() {
  root_.expect_only({"$schema", "description", "tasks"});
  count_forms(root_.at("tasks").elements());
  tasks_.reserve(total_tasks_);
  origins_.reserve(total_tasks_);
  by_id_.reserve(total_tasks_);
  for (std::size_t i = 0; i < forms_.size(); ++i) {
    Form& f = forms_[i];
    for (std::uint64_t b = 0; b < f.copies; ++b)
      read_task(f, Origin{static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(b)});
    if (!f.loops && !f.deps) f.fields.reset();  // read once, and no template to expand later
  }
  // Dependencies, once every id is known.
  std::vector<std::size_t> listed_by(tasks_.size(), tasks_.size());
  last_ = tasks_.size();
  for (std::size_t i = 0; i < tasks_.size(); ++i) {
    read_deps(forms_[origins_[i].form], origins_[i], i, listed_by);
  }
  const std::vector<std::size_t> order = detail::canonical_order(tasks_);
  if (order.size() != tasks_.size()) fail_cycle(order);
  std::string description;
  if (auto d = root_.get("description")) description = d->as_string();
  TaskGraph graph =
      detail::place_tasks(tasks_, order, topo_, rates_,
                          [&](std::size_t i, const char* field, const std::string& message) {
                            const Origin& o = origins_[i];
                            fail_task(forms_[o.form].view.at(field), o, tasks_[i].id, message);
                          });
  graph.description = std::move(description);
  return graph;
}

}  // namespace

TaskGraph parse_task_graph(const Json& document, const std::string& file,
                           const topo::Topology& topology, LinkRates rates) {
  TaskGraph graph = Loader(JsonView(document, file), topology, rates).load();
  enforce_schema(document, file, task_graph_schema_path());
  return graph;
}

std::vector<std::string> channel_names(const TaskGraph& graph, const topo::Topology& topology) {
  std::vector<std::string> names = topo::channel_names(topology);
  for (std::size_t c = names.size(); c < graph.simulation.channel_count(); ++c)
    names.push_back(fmt::format("protocol cap {}", c));
  return names;
}

TaskGraph read_task_graph_text(const std::string& text, const std::string& file,
                               const topo::Topology& topology, LinkRates rates) {
  const MemoryPhase phase(fmt::format("reading the task graph {}", file));
  if (auto graph = detail::read_valid_task_graph(text, topology, rates)) return std::move(*graph);
  return parse_task_graph(parse_json_text(text, file), file, topology, rates);
}

TaskGraph load_task_graph(const std::string& path, const topo::Topology& topology,
                          LinkRates rates) {
  // Room past the end lets the fast reader parse the text in place (simdjson's padding).
  const std::string text = read_text_file(path, 64);
  return read_task_graph_text(text, path, topology, rates);
}

}  // namespace linksim::work
