#pragma once
// Reading JSON input with errors that say where. A JsonView is a value plus the file it came
// from and its JSON pointer; every accessor that fails throws InputError naming both and what
// was expected. Loaders use it instead of nlohmann's at()/get() so that no input problem
// escapes as a bare library exception.

#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace linksim {

using Json = nlohmann::ordered_json;

// Deepest nesting of arrays and objects an input may have; deeper is refused with its line and
// column (every linksim format is a few levels deep).
inline constexpr int kMaxJsonDepth = 256;

// Parses a file; malformed JSON, a number too large for a double, or nesting deeper than
// kMaxJsonDepth throws InputError with "line L, column C".
Json read_json_file(const std::string& path);
// Parses text that came from `source_name` (a file name, or "<stdin>").
Json parse_json_text(const std::string& text, const std::string& source_name);

// Type name for messages: "a string", "a number", "an object", ...
std::string json_type_name(const Json& value);

class JsonView {
 public:
  JsonView(const Json& value, std::string file, std::string pointer = "");

  const Json& raw() const { return *value_; }
  const std::string& file() const { return file_; }
  // JSON pointer of this value, "/" for the root.
  std::string pointer() const { return pointer_.empty() ? "/" : pointer_; }

  bool is_object() const { return value_->is_object(); }
  bool is_array() const { return value_->is_array(); }
  bool is_string() const { return value_->is_string(); }
  bool is_number() const { return value_->is_number(); }
  bool has(std::string_view key) const;

  // Object members. `at` requires the key; `get` returns nullopt when it is absent.
  JsonView at(std::string_view key) const;
  std::optional<JsonView> get(std::string_view key) const;
  // Array elements, each with its own pointer.
  std::vector<JsonView> elements() const;
  // Object members in file order.
  std::vector<std::pair<std::string, JsonView>> members() const;

  std::string as_string() const;
  double as_number() const;
  std::int64_t as_integer() const;
  bool as_bool() const;

  // Convenience for optional members with a default.
  std::string string_or(std::string_view key, std::string fallback) const;
  double number_or(std::string_view key, double fallback) const;
  std::int64_t integer_or(std::string_view key, std::int64_t fallback) const;
  bool bool_or(std::string_view key, bool fallback) const;

  // Quantities with units: "25 GB/s", "1.2 us", "80 GiB". A plain number is rejected, since a
  // unitless figure is the most common way to be off by 1e9.
  double as_bandwidth_Bps() const;
  double as_time_s() const;
  double as_bytes() const;

  // Rejects members not in `allowed`, naming the first unknown one and the valid ones.
  void expect_only(std::initializer_list<std::string_view> allowed) const;
  void expect_only(const std::vector<std::string>& allowed) const;

  // Throws InputError at this value's location.
  [[noreturn]] void fail(const std::string& message) const;

 private:
  void expect_type(bool ok, const char* expected) const;

  const Json* value_;
  std::string file_;
  std::string pointer_;
};

// Escapes a key for use in a JSON pointer ("~" -> "~0", "/" -> "~1").
std::string json_pointer_escape(std::string_view key);

}  // namespace linksim
