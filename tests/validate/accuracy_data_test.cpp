// linksim accuracy for programs (validate/accuracy_data.hpp).
#include "validate/accuracy_data.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace linksim::validate {
namespace {

std::vector<AccuracySet> one_set() {
  AccuracySet s;
  s.name = "A100, all_reduce";
  s.topology = "dgx-a100";
  AccuracyRow r;
  r.size_bytes = 1048576;
  r.measured_busbw_Bps = 200e9;
  r.predicted_busbw_Bps = 150e9;  // 150 / 200 - 1 = -0.25, exact in binary
  r.choice = "Ring/Simple x16";
  s.rows.push_back(r);
  s.median_abs_error = 0.25;
  s.max_abs_error = 0.25;
  return {s};
}

// Numbers are std::to_chars' shortest form: 200e9 as "2e+11" (5 characters against 12 fixed),
// 1048576 fixed (7 against 12).
TEST(AccuracyDataTest, CsvHasOneLinePerRowWithTheErrorWorkedOut) {
  EXPECT_EQ(accuracy_csv(one_set()),
            "set,topology,op,size_bytes,measured_busbw_Bps,predicted_busbw_Bps,error,choice,"
            "counted,error_note\n"
            "\"A100, all_reduce\",dgx-a100,all_reduce,1048576,2e+11,1.5e+11,-0.25,"
            "Ring/Simple x16,true,\n");
}

TEST(AccuracyDataTest, JsonKeepsTheSetsFigures) {
  const auto j = nlohmann::json::parse(accuracy_json(one_set()));
  ASSERT_EQ(j.size(), 1u);
  EXPECT_EQ(j[0]["median_abs_error"], 0.25);
  EXPECT_EQ(j[0]["rows"][0]["error"], -0.25);
  EXPECT_EQ(j[0]["rows"][0]["op"], "all_reduce");
}

// A source that rounds a tiny busbw to 0.00 GB/s gives no ratio (x / 0 - 1 is inf): JSON has no
// inf, so the row says null with the reason, and CSV says n/a (was "internal error: json
// parse_error" for `linksim accuracy --format json`).
TEST(AccuracyDataTest, AMeasuredZeroGivesNoErrorButAReason) {
  auto sets = one_set();
  sets[0].rows[0].measured_busbw_Bps = 0;
  sets[0].rows[0].counted = false;
  const auto j = nlohmann::json::parse(accuracy_json(sets));
  EXPECT_TRUE(j[0]["rows"][0]["error"].is_null());
  EXPECT_EQ(j[0]["rows"][0]["error_note"], "n/a: the measured busbw is 0, so no ratio");
  EXPECT_EQ(accuracy_csv(sets),
            "set,topology,op,size_bytes,measured_busbw_Bps,predicted_busbw_Bps,error,choice,"
            "counted,error_note\n"
            "\"A100, all_reduce\",dgx-a100,all_reduce,1048576,0,1.5e+11,n/a,"
            "Ring/Simple x16,false,\"n/a: the measured busbw is 0, so no ratio\"\n");
}

}  // namespace
}  // namespace linksim::validate
