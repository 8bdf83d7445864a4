// Templates in node and link fields ("gpu{g}", "{i/4}") and the "for" loops that bind their
// variables: the machine format's way of writing N similar links once.
#include <fmt/format.h>

#include <cstdint>
#include <exception>

#include "sim/topo/loader_sections.hpp"
#include "sim/topo/loop_values.hpp"

namespace linksim::topo {
std::string expand_or_fail(const JsonView& where, const std::string& pattern,
                           const TemplateVars& vars) {
  TemplateResult r = expand_template(pattern, vars);
  if (!r.error.empty()) where.fail(r.error);
  return r.text;
}

int template_int(const JsonView& v, const TemplateVars& vars) {
  if (v.is_number()) return static_cast<int>(v.as_integer());
  const std::string text = expand_or_fail(v, v.as_string(), vars);
  try {
    std::size_t used = 0;
    const int out = std::stoi(text, &used);
    if (used == text.size()) return out;
  } catch (const std::exception&) {
  }
  v.fail(fmt::format("expected an integer or an integer template such as \"{{i/4}}\", got \"{}\"",
                     text));
}

std::string describe_vars(const TemplateVars& vars) {
  if (vars.empty()) return "";
  std::vector<std::string> parts;
  for (const auto& [k, v] : vars)
    parts.push_back(fmt::format("{}={}", k, v));
  return fmt::format(" (with {})", fmt::join(parts, ", "));
}

std::vector<TemplateVars> loop_bindings(const std::optional<JsonView>& loops) {
  std::vector<TemplateVars> out{TemplateVars{}};
  if (!loops) return out;
  // Each variable is bounded, and so is their product: two of 1,000,000 values would be 1e12
  // links.
  for (const auto& [name, values_view] : loops->members()) {
    const auto values = loop_values(values_view);
    if (out.size() * values.size() > kMaxLoopBindings) {
      loops->fail(
          fmt::format("the \"for\" variables make {} x {} combinations; expected at "
                      "most {} in all",
                      out.size(), values.size(), kMaxLoopBindings));
    }
    std::vector<TemplateVars> next;
    for (const auto& partial : out) {
      for (auto value : values) {
        TemplateVars b = partial;
        b[name] = value;
        next.push_back(std::move(b));
      }
    }
    out = std::move(next);
  }
  return out;
}

}  // namespace linksim::topo
