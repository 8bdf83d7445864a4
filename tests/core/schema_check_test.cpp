#include "sim/core/schema_check.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "sim/core/error.hpp"
#include "tests/support/temp_files.hpp"
#include "tests/support/thrown_message.hpp"

namespace linksim {
namespace {

using testing::TempDir;

// A small schema in the style of the shipped ones.
const char* kSchema = R"({
  "$schema": "http://json-schema.org/draft-07/schema#",
  "type": "object",
  "additionalProperties": false,
  "required": ["title"],
  "properties": {
    "title": {"type": "string", "minLength": 1},
    "algorithm": {"enum": ["Ring", "Tree"]},
    "stage": {"type": "integer", "minimum": 0, "maximum": 3},
    "share": {"type": "number", "exclusiveMinimum": 0},
    "size": {"$ref": "#/definitions/size"},
    "items": {"type": "array", "items": {"$ref": "#/definitions/item"}}
  },
  "definitions": {
    "size": {"type": "string", "pattern": "^[0-9]+ (B|GB)$"},
    "item": {"type": "object", "properties": {"n": {"type": "integer"}}}
  }
})";

// The InputError enforce_schema throws for `doc`, as printed.
std::string refusal(const std::string& doc) {
  TempDir dir;
  std::filesystem::create_directories(dir.path() + "/kind");
  const std::string schema = dir.write("kind/schema.json", kSchema);
  return testing::thrown_message<InputError>(
      [&] { enforce_schema(parse_json_text(doc, "in.json"), "in.json", schema); });
}

TEST(EnforceSchema, AcceptsAConformingDocument) {
  EXPECT_EQ(refusal(R"({"title": "t", "algorithm": "Ring", "stage": 3, "size": "10 GB"})"),
            "accepted");
}

TEST(EnforceSchema, NamesThePlaceAndWhatWasExpected) {
  EXPECT_EQ(refusal(R"({"title": "t", "algorithm": "Bogus"})"),
            "in.json: at /algorithm: does not match kind/schema.json: expected one of: Ring, "
            "Tree, got \"Bogus\"");
  EXPECT_EQ(refusal(R"({"title": ""})"),
            "in.json: at /title: does not match kind/schema.json: expected a non-empty string");
  EXPECT_EQ(refusal(R"({"title": 5})"),
            "in.json: at /title: does not match kind/schema.json: expected a string, got a "
            "number");
  EXPECT_EQ(refusal(R"({"title": "t", "stage": 4})"),
            "in.json: at /stage: does not match kind/schema.json: expected a number at most 3");
  EXPECT_EQ(refusal(R"({"title": "t", "stage": -1})"),
            "in.json: at /stage: does not match kind/schema.json: expected a number at least 0");
  EXPECT_EQ(refusal(R"({"title": "t", "share": 0})"),
            "in.json: at /share: does not match kind/schema.json: expected a number above 0");
  EXPECT_EQ(refusal(R"({"title": "t", "size": "abc"})"),
            "in.json: at /size: does not match kind/schema.json: expected text matching "
            "\"^[0-9]+ (B|GB)$\"");
}

TEST(EnforceSchema, MissingAndUnknownFields) {
  EXPECT_EQ(refusal(R"({})"),
            "in.json: at /: does not match kind/schema.json: missing required field \"title\"");
  EXPECT_EQ(refusal(R"({"title": "t", "colour": 1})"),
            "in.json: at /colour: does not match kind/schema.json: unknown field \"colour\"");
}

// Array elements and references are followed to the subschema that speaks.
TEST(EnforceSchema, PointsIntoArrays) {
  EXPECT_EQ(refusal(R"({"title": "t", "items": [{"n": 1}, {"n": "two"}]})"),
            "in.json: at /items/1/n: does not match kind/schema.json: expected an integer, got "
            "a string");
}

TEST(EnforceSchema, SkipsAMissingSchemaFile) {
  TempDir dir;
  EXPECT_NO_THROW(enforce_schema(parse_json_text("{}", "in.json"), "in.json",
                                 dir.path() + "/none/schema.json"));
}

// The list form keeps every problem, for `topo check`-style reports.
TEST(SchemaViolations, ListsEveryProblem) {
  const auto problems = schema_violations(parse_json_text(R"({"title": "", "stage": 9})", "d"),
                                          parse_json_text(kSchema, "s"));
  ASSERT_GE(problems.size(), 2u);
  EXPECT_NE(std::find(problems.begin(), problems.end(),
                      "/stage: Expected number less than or equal to 3.000000"),
            problems.end());
}

}  // namespace
}  // namespace linksim
