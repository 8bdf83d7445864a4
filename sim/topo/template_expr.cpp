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
// Most nodes a compiled template has (CompiledTemplate).
constexpr std::size_t kMaxCompiledNodes = 256;

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

// Parses as Parser does (the same grammar, depth bound and literals), building nodes instead of
// values; any failure gives up, so that expand_template reports it.
class TemplateCompiler {
 public:
  TemplateCompiler(CompiledTemplate& out, const std::vector<std::string>& names)
      : out_(out), names_(names) {}

  // The root of the expression `text`, or -1.
  std::int32_t parse(std::string_view text) {
    text_ = text;
    pos_ = 0;
    depth_ = 0;
    ok_ = true;
    const std::int32_t root = expr();
    skip();
    return ok_ && pos_ == text_.size() ? root : -1;
  }

 private:
  std::int32_t add(CompiledTemplate::Node n) {
    // eval recurses once per level of the tree, and a chain "1+1+...+1" is as deep as it is
    // long: a pattern that large is left to expand_template, which loops.
    if (out_.nodes_.size() >= kMaxCompiledNodes) return fail();
    out_.nodes_.push_back(n);
    return static_cast<std::int32_t>(out_.nodes_.size() - 1);
  }
  std::int32_t fail() {
    ok_ = false;
    pos_ = text_.size();
    return -1;
  }
  void skip() {
    while (pos_ < text_.size() && text_[pos_] == ' ')
      ++pos_;
  }
  std::int32_t expr() {
    std::int32_t v = term();
    for (;;) {
      skip();
      if (!ok_ || pos_ >= text_.size()) return v;
      const char op = text_[pos_];
      if (op != '+' && op != '-') return v;
      ++pos_;
      const std::int32_t r = term();
      v = add({op, v, r, 0});
    }
  }
  std::int32_t term() {
    std::int32_t v = factor();
    for (;;) {
      skip();
      if (!ok_ || pos_ >= text_.size()) return v;
      const char op = text_[pos_];
      if (op != '*' && op != '/' && op != '%') return v;
      ++pos_;
      const std::int32_t r = factor();
      v = add({op, v, r, 0});
    }
  }
  std::int32_t factor() {
    skip();
    if (pos_ >= text_.size()) return fail();
    const char c = text_[pos_];
    if (c == '(' || c == '-') {
      if (depth_ >= kMaxDepth) return fail();
      ++depth_;
      ++pos_;
      std::int32_t v = -1;
      if (c == '(') {
        v = expr();
        skip();
        if (pos_ >= text_.size() || text_[pos_] != ')') return fail();
        ++pos_;
      } else {
        v = add({'~', factor(), -1, 0});
      }
      --depth_;
      return v;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      const std::size_t start = pos_;
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_])))
        ++pos_;
      std::int64_t v = 0;
      const auto [end, ec] = std::from_chars(text_.data() + start, text_.data() + pos_, v);
      if (ec != std::errc() || end != text_.data() + pos_) return fail();
      return add({'n', -1, -1, v});
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      const std::size_t start = pos_;
      while (pos_ < text_.size() &&
             (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
        ++pos_;
      }
      const std::string_view name = text_.substr(start, pos_ - start);
      for (std::size_t k = 0; k < names_.size(); ++k) {
        if (names_[k] == name) return add({'v', -1, -1, static_cast<std::int64_t>(k)});
      }
      return fail();
    }
    return fail();
  }

  CompiledTemplate& out_;
  const std::vector<std::string>& names_;
  std::string_view text_;
  std::size_t pos_ = 0;
  int depth_ = 0;
  bool ok_ = true;
};

std::optional<CompiledTemplate> CompiledTemplate::compile(const std::string& pattern,
                                                          const std::vector<std::string>& names) {
  CompiledTemplate out;
  TemplateCompiler compiler(out, names);
  Piece piece;
  std::size_t i = 0;
  while (i < pattern.size()) {
    const char c = pattern[i];
    if (c == '}') return std::nullopt;
    if (c != '{') {
      piece.text += c;
      ++i;
      continue;
    }
    const std::size_t close = pattern.find('}', i);
    if (close == std::string::npos) return std::nullopt;
    piece.root = compiler.parse(std::string_view(pattern).substr(i + 1, close - i - 1));
    if (piece.root < 0) return std::nullopt;
    out.pieces_.push_back(std::move(piece));
    piece = Piece{};
    i = close + 1;
  }
  if (!piece.text.empty()) out.pieces_.push_back(std::move(piece));
  return out;
}

// As Parser computes: the same overflow and division checks.
bool CompiledTemplate::eval(std::int32_t node, std::span<const std::int64_t> values,
                            std::int64_t& out) const {
  const Node& n = nodes_[static_cast<std::size_t>(node)];
  switch (n.op) {
    case 'n':
      out = n.value;
      return true;
    case 'v':
      out = values[static_cast<std::size_t>(n.value)];
      return true;
    case '~': {
      std::int64_t v = 0;
      if (!eval(n.a, values, v) || v == std::numeric_limits<std::int64_t>::min()) return false;
      out = -v;
      return true;
    }
    default:
      break;
  }
  std::int64_t l = 0;
  std::int64_t r = 0;
  if (!eval(n.a, values, l) || !eval(n.b, values, r)) return false;
  switch (n.op) {
    case '+':
      return !__builtin_add_overflow(l, r, &out);
    case '-':
      return !__builtin_sub_overflow(l, r, &out);
    case '*':
      return !__builtin_mul_overflow(l, r, &out);
    default:
      if (r == 0 || (l == std::numeric_limits<std::int64_t>::min() && r == -1)) return false;
      out = n.op == '/' ? l / r : l % r;
      return true;
  }
}

bool CompiledTemplate::expand(std::span<const std::int64_t> values, std::string& out) const {
  for (const Piece& p : pieces_) {
    out += p.text;
    if (p.root < 0) continue;
    std::int64_t v = 0;
    if (!eval(p.root, values, v)) return false;
    char digits[24];
    const auto [end, ec] = std::to_chars(digits, digits + sizeof digits, v);
    out.append(digits, end);
  }
  return true;
}

}  // namespace linksim::topo
