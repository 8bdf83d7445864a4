#pragma once
// Internal to the task-graph loader (task_graph.cpp): the "for" loops of the repeat form
// (docs/task-graph-format.md, "Repeated tasks"). A task's "for", or a dependency entry's, names
// integer variables, each with its values; the task (or the entry) stands for one copy per
// combination of values, the first variable slowest, as machine links loop
// (sim/topo/loop_values.hpp). Bindings are numbered 0 .. count() - 1 in that order, so that a
// task needs only its number to say which copy it is.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "sim/core/json_view.hpp"
#include "sim/topo/template_expr.hpp"

namespace linksim::work::detail {

// Most tasks and dependencies the loops of one graph may make, checked before anything is
// expanded (a task is about 100 bytes in memory, a dependency 8).
inline constexpr std::uint64_t kMaxExpandedTasks = 10'000'000;
inline constexpr std::uint64_t kMaxExpandedDeps = 50'000'000;

struct Loops {
  std::vector<std::string> names;                 // in file order
  std::vector<std::vector<std::int64_t>> values;  // values[k]: names[k]'s

  // The number of combinations, saturating at UINT64_MAX.
  std::uint64_t count() const;
  // values[i] = names[i]'s value in binding `k` (< count()).
  void bind(std::uint64_t k, std::span<std::int64_t> values) const;
  // "s=4, r=2": binding `k`, in file order.
  std::string describe(std::uint64_t k) const;
};

// The "for" object at `v`: at least one variable, each named as a template variable (a letter
// or '_', then letters, digits or '_') and not one of `outer` (the task's, for a dependency
// entry's loops), each with values as sim/topo/loop_values.hpp reads them.
Loops read_loops(const JsonView& v, const Loops* outer = nullptr);

// a x b and a + b, saturating at UINT64_MAX.
std::uint64_t saturating_product(std::uint64_t a, std::uint64_t b);
std::uint64_t saturating_sum(std::uint64_t a, std::uint64_t b);

}  // namespace linksim::work::detail
