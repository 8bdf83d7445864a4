#include "sim/work/task_graph_loops.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <limits>

#include "sim/topo/loop_values.hpp"

namespace linksim::work::detail {
namespace {

// As sim/topo/template_expr.cpp reads a variable inside {...}.
bool is_variable_name(const std::string& name) {
  if (name.empty()) return false;
  const auto head = static_cast<unsigned char>(name.front());
  if (!std::isalpha(head) && head != '_') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

}  // namespace

std::uint64_t saturating_product(std::uint64_t a, std::uint64_t b) {
  std::uint64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out)) return std::numeric_limits<std::uint64_t>::max();
  return out;
}

std::uint64_t saturating_sum(std::uint64_t a, std::uint64_t b) {
  std::uint64_t out = 0;
  if (__builtin_add_overflow(a, b, &out)) return std::numeric_limits<std::uint64_t>::max();
  return out;
}

std::uint64_t Loops::count() const {
  std::uint64_t n = 1;
  for (const auto& v : values)
    n = saturating_product(n, v.size());
  return n;
}

void Loops::bind(std::uint64_t k, std::span<std::int64_t> out) const {
  for (std::size_t i = names.size(); i-- > 0;) {  // the last variable varies fastest
    const std::uint64_t size = values[i].size();
    out[i] = values[i][k % size];
    k /= size;
  }
}

std::string Loops::describe(std::uint64_t k) const {
  std::vector<std::int64_t> v(names.size());
  bind(k, v);
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i)
    out += fmt::format("{}{}={}", i ? ", " : "", names[i], v[i]);
  return out;
}

Loops read_loops(const JsonView& v, const Loops* outer) {
  if (!v.is_object()) {
    v.fail(fmt::format("expected an object of loop variables such as {{\"r\": \"0..7\"}}, got {}",
                       json_type_name(v.raw())));
  }
  Loops loops;
  for (const auto& [name, values] : v.members()) {
    if (!is_variable_name(name)) {
      values.fail(fmt::format(
          "loop variable \"{}\": expected a name of letters, digits and '_' that does not start "
          "with a digit",
          name));
    }
    if (outer && std::find(outer->names.begin(), outer->names.end(), name) != outer->names.end()) {
      values.fail(fmt::format("loop variable \"{}\" is already the task's", name));
    }
    loops.names.push_back(name);
    loops.values.push_back(topo::loop_values(values));
  }
  if (loops.names.empty()) v.fail("expected at least one loop variable");
  return loops;
}

}  // namespace linksim::work::detail
