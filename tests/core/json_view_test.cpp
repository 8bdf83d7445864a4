#include "sim/core/json_view.hpp"

#include <gtest/gtest.h>

#include <string>

#include "sim/core/error.hpp"
#include "tests/support/thrown_message.hpp"

namespace linksim {
namespace {

std::string parse_error_of(const std::string& text) {
  return testing::thrown_message<InputError>([&] { parse_json_text(text, "in.json"); });
}

std::string view_error_of(const Json& doc, double (JsonView::*read)() const) {
  return testing::thrown_message<InputError>([&] { (JsonView(doc, "in.json").at("v").*read)(); });
}

TEST(JsonViewTest, RefusesNestingDeeperThanTheLimitWithItsPlace) {
  // kMaxJsonDepth (256) levels parse; the 257th '[' is refused where it stands: line 2,
  // column 257 - 256 + 1 = 2, since line 2 begins with the 256th '['.
  const std::string ok = std::string(256, '[') + std::string(256, ']');
  EXPECT_TRUE(parse_json_text(ok, "in.json").is_array());
  const std::string deep = std::string(255, '[') + "\n" + std::string(300'000, '[');
  EXPECT_EQ(parse_error_of(deep),
            "in.json: at line 2, column 2: JSON nested deeper than 256 levels");
  // Brackets inside strings, escaped quotes included, do not count.
  const std::string quoted = "[\"\\\"" + std::string(1000, '[') + "\"]";
  EXPECT_EQ(parse_json_text(quoted, "in.json")[0].get<std::string>().size(), 1001u);
}

TEST(JsonViewTest, NumberTooLargeForADoubleIsAPlacedInputError) {
  // "1e309" starts at line 2, column 8 (after two spaces, "\"a\":" and a space).
  EXPECT_EQ(parse_error_of("{\n  \"a\": 1e309}"),
            "in.json: at line 2, column 8: malformed JSON: number too large for a double: "
            "'1e309'");
}

TEST(JsonViewTest, SyntaxErrorsKeepTheirPlace) {
  // The stray '}' is byte 6, line 1 column 6.
  EXPECT_EQ(parse_error_of("{\"a\":}").substr(0, 36), "in.json: at line 1, column 6: malfor");
}

TEST(JsonViewTest, QuantitiesBeyondTheirBoundsAreRefused) {
  // 1e308 GB = 1e317 B, infinite as a double; 1e308 s and 1e308 GB/s are finite but far beyond.
  EXPECT_EQ(view_error_of(Json{{"v", "1e308 GB"}}, &JsonView::as_bytes),
            "in.json: at /v: size \"1e308 GB\" is beyond what linksim accepts: at most 1 EB "
            "(1e18 bytes)");
  EXPECT_EQ(view_error_of(Json{{"v", "1e308 s"}}, &JsonView::as_time_s),
            "in.json: at /v: time \"1e308 s\" is beyond what linksim accepts: at most 1e7 s "
            "(about 116 days)");
  EXPECT_EQ(view_error_of(Json{{"v", "1e308 GB/s"}}, &JsonView::as_bandwidth_Bps),
            "in.json: at /v: bandwidth \"1e308 GB/s\" is beyond what linksim accepts: at most "
            "1 PB/s");
  // The bounds themselves are accepted: 1 EB = 1e18 B, 1e7 s, 1 PB/s = 1e15 B/s.
  EXPECT_DOUBLE_EQ(JsonView(Json{{"v", "1e9 GB"}}, "f").at("v").as_bytes(), 1e18);
  EXPECT_DOUBLE_EQ(JsonView(Json{{"v", "1e7 s"}}, "f").at("v").as_time_s(), 1e7);
  EXPECT_DOUBLE_EQ(JsonView(Json{{"v", "1000 TB/s"}}, "f").at("v").as_bandwidth_Bps(), 1e15);
}

// A whole number past 64 bits is too large, not "not an integer" (and not wrapped: 2^63 as
// an unsigned would have become INT64_MIN).
TEST(JsonViewTest, IntegersPast64BitsAreRefusedAsSuch) {
  const auto integer_error = [](const std::string& text) {
    const Json doc = parse_json_text("{\"v\": " + text + "}", "in.json");
    try {
      JsonView(doc, "in.json").at("v").as_integer();
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_EQ(integer_error("18446744073709551616"),
            "in.json: at /v: expected an integer, got 1.8446744073709552e+19, beyond 64-bit "
            "integers");
  EXPECT_EQ(integer_error("9223372036854775808"),
            "in.json: at /v: expected an integer, got 9223372036854775808, beyond 64-bit integers");
  EXPECT_EQ(integer_error("-1e19"),
            "in.json: at /v: expected an integer, got -1e+19, beyond 64-bit integers");
  EXPECT_EQ(integer_error("1.5"), "in.json: at /v: expected an integer, got a number");
  EXPECT_EQ(integer_error("9223372036854775807"), "(no error)");
}

}  // namespace
}  // namespace linksim
