#include "sim/topo/template_expr.hpp"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <limits>

namespace linksim::topo {
namespace {

// Parentheses and unary minus signs an expression may nest; the evaluator recurses once per
// level, so a bound keeps a hostile file from overflowing the stack.
constexpr int kMaxDepth = 64;
// Longest pattern or literal quoted whole in a message; longer ones are cut with their length.
constexpr std::size_t kMaxQuotedPattern = 60;
constexpr std::size_t kQuotedPrefix = 40;
constexpr std::size_t kMaxQuotedDigits = 24;

std::string quote_pattern(const std::string& pattern) {
  if (pattern.size() <= kMaxQuotedPattern) return "\"" + pattern + "\"";
  return fmt::format("\"{}...\" ({} characters)", pattern.substr(0, kQuotedPrefix), pattern.size());
}

std::string quote_literal(std::string_view digits) {
  if (digits.size() <= kMaxQuotedDigits) return std::string(digits);
  return fmt::format("{}... ({} digits)", digits.substr(0, kMaxQuotedDigits), digits.size());
}

constexpr const char* kOverflow = "result does not fit a 64-bit integer";

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
      const bool overflow =
          op == '+' ? __builtin_add_overflow(v, r, &v) : __builtin_sub_overflow(v, r, &v);
      if (overflow) {
        fail(kOverflow);
        return 0;
      }
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
        if (__builtin_mul_overflow(v, r, &v)) {
          fail(kOverflow);
          return 0;
        }
      } else if (r == 0) {
        fail("division by zero");
        return 0;
      } else if (v == std::numeric_limits<std::int64_t>::min() && r == -1) {
        fail(kOverflow);  // -2^63 / -1 = 2^63; the hardware traps
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
    if (c == '(' || c == '-') {
      if (depth_ >= kMaxDepth) {
        fail(fmt::format("expression nested deeper than {} levels", kMaxDepth));
        return 0;
      }
      ++depth_;
      const std::int64_t v = c == '(' ? parenthesized() : negated();
      --depth_;
      return v;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) return literal();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') return variable();
    fail(fmt::format("unexpected '{}'", c));
    return 0;
  }
  std::int64_t parenthesized() {
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
  std::int64_t negated() {
    ++pos_;
    const std::int64_t v = factor();
    if (v == std::numeric_limits<std::int64_t>::min()) {
      fail(kOverflow);
      return 0;
    }
    return -v;
  }
  std::int64_t literal() {
    const std::size_t start = pos_;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_])))
      ++pos_;
    const std::string_view digits = text_.substr(start, pos_ - start);
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (ec != std::errc() || end != digits.data() + digits.size()) {
      fail(fmt::format("number {} does not fit a 64-bit integer", quote_literal(digits)));
      return 0;
    }
    return v;
  }
  std::int64_t variable() {
    const std::size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
      ++pos_;
    }
    const std::string_view name = text_.substr(start, pos_ - start);
    auto it = vars_.find(name);
    if (it == vars_.end()) {
      fail(fmt::format("unknown variable '{}'", quote_literal(name)));
      return 0;
    }
    return it->second;
  }

  std::string_view text_;
  const TemplateVars& vars_;
  std::size_t pos_ = 0;
  int depth_ = 0;
  std::string error_;
};

}  // namespace

TemplateResult expand_template(const std::string& pattern, const TemplateVars& vars) {
  TemplateResult result;
  std::size_t i = 0;
  while (i < pattern.size()) {
    const char c = pattern[i];
    if (c == '}') return {"", fmt::format("unmatched '}}' in {}", quote_pattern(pattern))};
    if (c != '{') {
      result.text += c;
      ++i;
      continue;
    }
    const std::size_t close = pattern.find('}', i);
    if (close == std::string::npos) {
      return {"", fmt::format("unmatched '{{' in {}", quote_pattern(pattern))};
    }
    Parser parser(std::string_view(pattern).substr(i + 1, close - i - 1), vars);
    const std::int64_t v = parser.parse();
    if (!parser.error().empty()) {
      return {"", fmt::format("bad template {}: {}", quote_pattern(pattern), parser.error())};
    }
    result.text += std::to_string(v);
    i = close + 1;
  }
  return result;
}

}  // namespace linksim::topo
