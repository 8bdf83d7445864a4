#include "sim/topo/template_expr.hpp"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace linksim::topo
