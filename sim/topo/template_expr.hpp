#pragma once
// Templates in topology files: "gpu{g}" or "plx{g/2}" expand against integer variables bound by
// a link's "for" (or a counted node's {i}). Expressions are integer arithmetic: + - * / % and
// parentheses. Errors come back as text so the caller can attach file and JSON pointer.

#include <cstdint>
#include <map>
#include <string>

namespace linksim::topo {

using TemplateVars = std::map<std::string, std::int64_t, std::less<>>;

struct TemplateResult {
  std::string text;
  std::string error;  // empty on success
};

TemplateResult expand_template(const std::string& pattern, const TemplateVars& vars);

}  // namespace linksim::topo
