#include "sim/topo/template_expr.hpp"

#include <fmt/format.h>

#include <cctype>

namespace linksim::topo {
namespace {

// Recursive-descent evaluator over one {...} body.
class Parser {
 public:
  Parser(std::string_view text, const TemplateVars& vars) : text_(text), vars_(vars) {}

  std::int64_t parse() {
    const std::int64_t v = expr();
    skip();
    if (pos_ != text_.size()) fail(fmt::format("unexpected '{}'", text_[pos_]));
    return v;
  }
  const std::string& error() const { return error_; }

 private:
  void fail(const std::string& message) {
    if (error_.empty()) error_ = message;
    pos_ = text_.size();
  }
  void skip() {
    while (pos_ < text_.size() && text_[pos_] == ' ')
      ++pos_;
  }
  std::int64_t expr() {
    std::int64_t v = term();
    for (;;) {
      skip();
      if (pos_ >= text_.size()) return v;
      const char op = text_[pos_];
      if (op != '+' && op != '-') return v;
      ++pos_;
      const std::int64_t r = term();
      v = op == '+' ? v + r : v - r;
    }
  }
  std::int64_t term() {
    std::int64_t v = factor();
    for (;;) {
      skip();
      if (pos_ >= text_.size()) return v;
      const char op = text_[pos_];
      if (op != '*' && op != '/' && op != '%') return v;
      ++pos_;
      const std::int64_t r = factor();
      if (op == '*') {
        v *= r;
      } else if (r == 0) {
        fail("division by zero");
        return 0;
      } else {
        v = op == '/' ? v / r : v % r;
      }
    }
  }
  std::int64_t factor() {
    skip();
    if (pos_ >= text_.size()) {
      fail("expression ends early");
      return 0;
    }
    const char c = text_[pos_];
    if (c == '(') {
      ++pos_;
      const std::int64_t v = expr();
      skip();
      if (pos_ >= text_.size() || text_[pos_] != ')') {
        fail("missing ')'");
        return 0;
      }
      ++pos_;
      return v;
    }
    if (c == '-') {
      ++pos_;
      return -factor();
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      std::int64_t v = 0;
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
        v = v * 10 + (text_[pos_] - '0');
        ++pos_;
      }
      return v;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      const std::size_t start = pos_;
      while (pos_ < text_.size() &&
             (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
        ++pos_;
      }
      const std::string_view name = text_.substr(start, pos_ - start);
      auto it = vars_.find(name);
      if (it == vars_.end()) {
        fail(fmt::format("unknown variable '{}'", name));
        return 0;
      }
      return it->second;
    }
    fail(fmt::format("unexpected '{}'", c));
    return 0;
  }

  std::string_view text_;
  const TemplateVars& vars_;
  std::size_t pos_ = 0;
  std::string error_;
};

}  // namespace

TemplateResult expand_template(const std::string& pattern, const TemplateVars& vars) {
  TemplateResult result;
  std::size_t i = 0;
  while (i < pattern.size()) {
    const char c = pattern[i];
    if (c == '}') return {"", fmt::format("unmatched '}}' in \"{}\"", pattern)};
    if (c != '{') {
      result.text += c;
      ++i;
      continue;
    }
    const std::size_t close = pattern.find('}', i);
    if (close == std::string::npos) return {"", fmt::format("unmatched '{{' in \"{}\"", pattern)};
    Parser parser(std::string_view(pattern).substr(i + 1, close - i - 1), vars);
    const std::int64_t v = parser.parse();
    if (!parser.error().empty()) {
      return {"", fmt::format("bad template \"{}\": {}", pattern, parser.error())};
    }
    result.text += std::to_string(v);
    i = close + 1;
  }
  return result;
}

}  // namespace linksim::topo
