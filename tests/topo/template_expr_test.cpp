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

}  // namespace
}  // namespace linksim::topo
