#pragma once
// Templates in topology files: "gpu{g}" or "plx{g/2}" expand against integer variables bound by
// a link's "for" (or a counted node's {i}). Expressions are integer arithmetic: + - * / % and
// parentheses. Errors come back as text so the caller can attach file and JSON pointer.

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace linksim::topo {

using TemplateVars = std::map<std::string, std::int64_t, std::less<>>;

struct TemplateResult {
  std::string text;
  std::string error;  // empty on success
};

TemplateResult expand_template(const std::string& pattern, const TemplateVars& vars);

// A pattern parsed once and expanded many times (a task graph's loops expand one per task): the
// text expand_template gives, without reading the pattern again. Only the happy path: a pattern
// that does not parse, and an expansion that fails (division by zero, overflow), are left to
// expand_template, which says what is wrong.
class CompiledTemplate {
 public:
  // `pattern` over variables `names`; nullopt where expand_template would fail whatever the
  // values (syntax, a number too long, a variable not in `names`), and for a pattern of more
  // than 256 operands and operators (left to expand_template, which does not recurse on them).
  static std::optional<CompiledTemplate> compile(const std::string& pattern,
                                                 const std::vector<std::string>& names);
  // Appends the expansion with names[k] = values[k] to `out`; false on an arithmetic error.
  bool expand(std::span<const std::int64_t> values, std::string& out) const;

 private:
  // An expression node: a number, a variable (its index), a negation of node a, or a op b.
  struct Node {
    char op = 'n';  // 'n' number, 'v' variable, '~' negation, or one of + - * / %
    std::int32_t a = -1;
    std::int32_t b = -1;
    std::int64_t value = 0;  // the number, or the variable's index
  };
  // Literal text, then the expression rooted at `root` (none when -1).
  struct Piece {
    std::string text;
    std::int32_t root = -1;
  };
  bool eval(std::int32_t node, std::span<const std::int64_t> values, std::int64_t& out) const;
  friend class TemplateCompiler;
  std::vector<Node> nodes_;
  std::vector<Piece> pieces_;
};

}  // namespace linksim::topo
