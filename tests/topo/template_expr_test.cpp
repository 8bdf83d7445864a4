#include "sim/topo/template_expr.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace linksim::topo {
namespace {

TEST(TemplateExprTest, ExpandsIntegerArithmetic) {
  const TemplateVars vars{{"g", 5}, {"s", 2}};
  // 5 / 2 = 2 (integer division).
  EXPECT_EQ(expand_template("plx{g/2}", vars).text, "plx2");
  // (5 + 1) * 3 % 4 = 18 % 4 = 2.
  EXPECT_EQ(expand_template("n{(g+1)*3%4}", vars).text, "n2");
  // 2 * 4 + 5 = 13.
  EXPECT_EQ(expand_template("{s*4+g}-{g-s}", vars).text, "13-3");
  EXPECT_EQ(expand_template("cpu0", vars).text, "cpu0");
}

TEST(TemplateExprTest, ReportsBadTemplates) {
  const TemplateVars vars{{"g", 1}};
  EXPECT_EQ(expand_template("gpu{x}", vars).error, "bad template \"gpu{x}\": unknown variable 'x'");
  EXPECT_EQ(expand_template("gpu{g", vars).error, "unmatched '{' in \"gpu{g\"");
  EXPECT_EQ(expand_template("gpu{g/0}", vars).error, "bad template \"gpu{g/0}\": division by zero");
}

TEST(TemplateExprTest, RefusesNestingBeyondTheDepthLimit) {
  const TemplateVars vars{{"g", 1}};
  // 64 levels evaluate: ((...(g)...)) = 1.
  const std::string ok = "{" + std::string(64, '(') + "g" + std::string(64, ')') + "}";
  EXPECT_EQ(expand_template(ok, vars).text, "1");
  // 20,000 parentheses, or as many unary minus signs, are refused, not a stack overflow; the
  // pattern is quoted by its first 40 characters only.
  const std::string parens = "{" + std::string(20000, '(') + "g" + std::string(20000, ')') + "}";
  EXPECT_EQ(expand_template(parens, vars).error,
            "bad template \"{" + std::string(39, '(') +
                "...\" (40003 characters): expression nested deeper than 64 levels");
  const std::string minus = "{" + std::string(20000, '-') + "g}";
  EXPECT_NE(expand_template(minus, vars).error.find("nested deeper than 64 levels"),
            std::string::npos);
}

TEST(TemplateExprTest, ArithmeticOverflowIsAnErrorNotAWrapOrATrap) {
  const TemplateVars vars{{"g", 2}};
  // INT64_MIN / -1 = 2^63 does not fit (SIGFPE on x86 when done in hardware).
  EXPECT_EQ(expand_template("{(0-9223372036854775807-1)/(0-1)}", vars).error,
            "bad template \"{(0-9223372036854775807-1)/(0-1)}\": result does not fit a 64-bit "
            "integer");
  EXPECT_NE(expand_template("{(0-9223372036854775807-1)%(0-1)}", vars).error, "");
  // 2 * 9223372036854775807 * 4 wraps to -8 in two's complement: refused.
  EXPECT_NE(expand_template("{g*9223372036854775807*4}", vars).error.find("does not fit"),
            std::string::npos);
  EXPECT_NE(expand_template("{9223372036854775807+g}", vars).error.find("does not fit"),
            std::string::npos);
  EXPECT_NE(expand_template("{0-9223372036854775807-g}", vars).error.find("does not fit"),
            std::string::npos);
  // The largest value itself is fine: 9223372036854775807 - 2 + 2.
  EXPECT_EQ(expand_template("{9223372036854775807-g+g}", vars).text, "9223372036854775807");
}

TEST(TemplateExprTest, LiteralTooLargeIsQuotedBackUnwrapped) {
  const TemplateVars vars;
  // 23 digits exceed INT64_MAX (19 digits): the literal is named as written.
  EXPECT_EQ(expand_template("n{12345678901234567890123}", vars).error,
            "bad template \"n{12345678901234567890123}\": number 12345678901234567890123 does "
            "not fit a 64-bit integer");
  // A 100-digit literal is shown by its first 24 digits.
  const std::string long_literal(100, '7');
  EXPECT_NE(expand_template("{" + long_literal + "}", vars)
                .error.find("number " + std::string(24, '7') + "... (100 digits) does not fit"),
            std::string::npos);
}

// The compiled form gives expand_template's text, and leaves every failure to it.
TEST(CompiledTemplateTest, SameTextAsExpandTemplate) {
  const std::vector<std::string> names{"s", "i"};
  const std::vector<std::int64_t> values{3, 511};
  const TemplateVars vars{{"s", 3}, {"i", 511}};
  // s = 3, i = 511: (511 + 1) % 512 / 8 = 0; 511 % 8 = 7; -(s - 5) = 2; 7 / -2 = -3 (toward 0);
  // -7 % 3 = -1 (the sign of the dividend, as C).
  for (const char* pattern :
       {"s{s}.{i}", "node{(i + 1) % 512 / 8}/gpu{(i + 1) % 512 % 8}", "{i % 8}", "{-(s - 5)}",
        "{7 / -2}", "{-7 % s}", "plain", "", "{s}{i}", "{ ( s*2 ) }x"}) {
    const auto compiled = CompiledTemplate::compile(pattern, names);
    ASSERT_TRUE(compiled) << pattern;
    std::string out;
    ASSERT_TRUE(compiled->expand(values, out)) << pattern;
    EXPECT_EQ(out, expand_template(pattern, vars).text) << pattern;
  }
  std::string out;
  ASSERT_TRUE(CompiledTemplate::compile("{7 / -2}|{-7 % s}|{(i + 1) % 512 / 8}", names)
                  ->expand(values, out));
  EXPECT_EQ(out, "-3|-1|0");
}

TEST(CompiledTemplateTest, FailuresAreLeftToExpandTemplate) {
  const std::vector<std::string> names{"g"};
  // Syntax, an unknown variable, a literal too long: nothing compiles.
  for (const char* pattern :
       {"{g", "g}", "{g +}", "{h}", "{(g}", "{12345678901234567890123}", "{g g}"}) {
    EXPECT_FALSE(CompiledTemplate::compile(pattern, names)) << pattern;
  }
  // 1,001 terms: too large a tree to evaluate recursively; expand_template loops: 1001.
  std::string chain = "{";
  for (int k = 0; k < 1000; ++k)
    chain += "1+";
  chain += "1}";
  EXPECT_FALSE(CompiledTemplate::compile(chain, names));
  EXPECT_EQ(expand_template(chain, TemplateVars{}).text, "1001");
  // Arithmetic that fails for some values only: expand says false.
  const auto div = CompiledTemplate::compile("{1 / g}", names);
  ASSERT_TRUE(div);
  std::string out;
  EXPECT_FALSE(div->expand(std::vector<std::int64_t>{0}, out));
  const auto mul = CompiledTemplate::compile("{g * 9223372036854775807}", names);
  ASSERT_TRUE(mul);
  EXPECT_FALSE(mul->expand(std::vector<std::int64_t>{2}, out));
  const auto neg = CompiledTemplate::compile("{-g}", names);
  ASSERT_TRUE(neg);
  EXPECT_FALSE(
      neg->expand(std::vector<std::int64_t>{std::numeric_limits<std::int64_t>::min()}, out));
  const auto min_div = CompiledTemplate::compile("{g / -1}", names);
  ASSERT_TRUE(min_div);
  EXPECT_FALSE(
      min_div->expand(std::vector<std::int64_t>{std::numeric_limits<std::int64_t>::min()}, out));
}

}  // namespace
}  // namespace linksim::topo
