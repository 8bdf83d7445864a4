#include "sim/core/json_view.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "sim/core/error.hpp"
#include "sim/core/text_file.hpp"
#include "sim/core/units.hpp"

namespace linksim {
namespace {

// Line and column (both 1-based) of a byte offset, for parse errors.
std::pair<std::size_t, std::size_t> line_column(const std::string& text, std::size_t offset) {
  std::size_t line = 1;
  std::size_t column = 1;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return {line, column};
}

// Refuses nesting deeper than kMaxJsonDepth before nlohmann sees the text: its parser and the
// values it builds recurse per level, so 100,000 nested arrays overflow the stack. Strings are
// skipped so that brackets inside them do not count.
void check_depth(const std::string& text, const std::string& source_name) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth) {
        auto [line, column] = line_column(text, i);
        throw InputError(source_name, fmt::format("line {}, column {}", line, column),
                         fmt::format("JSON nested deeper than {} levels", kMaxJsonDepth));
      }
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
}

// nlohmann's DOM builder behind a SAX interface that keeps where a parse failed: a number
// too large for a double (1e309) arrives here as out_of_range 406 with its byte offset, which
// the plain parse() would throw without one.
class LocatingSax {
 public:
  explicit LocatingSax(Json& root) : dom_(root, /*allow_exceptions=*/false) {}

  bool null() { return dom_.null(); }
  bool boolean(bool v) { return dom_.boolean(v); }
  bool number_integer(Json::number_integer_t v) { return dom_.number_integer(v); }
  bool number_unsigned(Json::number_unsigned_t v) { return dom_.number_unsigned(v); }
  bool number_float(Json::number_float_t v, const Json::string_t& s) {
    return dom_.number_float(v, s);
  }
  bool string(Json::string_t& v) { return dom_.string(v); }
  bool binary(Json::binary_t& v) { return dom_.binary(v); }
  bool start_object(std::size_t n) { return dom_.start_object(n); }
  bool key(Json::string_t& v) { return dom_.key(v); }
  bool end_object() { return dom_.end_object(); }
  bool start_array(std::size_t n) { return dom_.start_array(n); }
  bool end_array() { return dom_.end_array(); }
  bool parse_error(std::size_t position, const std::string& last_token,
                   const nlohmann::detail::exception& e) {
    failed_ = true;
    position_ = position;
    token_size_ = last_token.size();
    error_id_ = e.id;
    detail_ = e.what();
    return false;
  }

  bool failed() const { return failed_; }
  std::size_t position() const { return position_; }
  std::size_t token_size() const { return token_size_; }
  int error_id() const { return error_id_; }
  const std::string& detail() const { return detail_; }

 private:
  nlohmann::detail::json_sax_dom_parser<Json> dom_;
  bool failed_ = false;
  std::size_t position_ = 0;
  std::size_t token_size_ = 0;
  int error_id_ = 0;
  std::string detail_;
};

}  // namespace

Json parse_json_text(const std::string& text, const std::string& source_name) {
  check_depth(text, source_name);
  Json root;
  LocatingSax sax(root);
  Json::sax_parse(text, &sax);
  if (!sax.failed()) return root;
  // nlohmann reports the byte just past the problem; point at the offending byte, or at the
  // start of a number that overflows.
  const bool overflow = sax.error_id() == 406;
  const std::size_t back = overflow ? std::max<std::size_t>(sax.token_size(), 1) : 1;
  const std::size_t offset = sax.position() >= back ? sax.position() - back : 0;
  auto [line, column] = line_column(text, offset);
  std::string what = sax.detail();
  std::string detail;
  if (overflow) {  // number overflow: "... number overflow parsing '1e309'"
    const auto quote = what.find('\'');
    detail = "number too large for a double" +
             (quote == std::string::npos ? "" : ": " + what.substr(quote));
  } else {
    // Keep nlohmann's description but drop its "[json.exception...] parse error at..." prefix.
    const auto colon = what.find(": ", what.find("parse error"));
    detail = colon == std::string::npos ? what : what.substr(colon + 2);
  }
  throw InputError(source_name, fmt::format("line {}, column {}", line, column),
                   "malformed JSON: " + detail);
}

Json read_json_file(const std::string& path) {
  return parse_json_text(read_text_file(path), path);
}

std::string json_type_name(const Json& value) {
  switch (value.type()) {
    case Json::value_t::null:
      return "null";
    case Json::value_t::boolean:
      return "a boolean";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
    case Json::value_t::number_float:
      return "a number";
    case Json::value_t::string:
      return "a string";
    case Json::value_t::array:
      return "an array";
    case Json::value_t::object:
      return "an object";
    default:
      return "an unsupported value";
  }
}

std::string json_pointer_escape(std::string_view key) {
  std::string out;
  for (char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

JsonView::JsonView(const Json& value, std::string file, std::string pointer)
    : value_(&value), file_(std::move(file)), pointer_(std::move(pointer)) {}

void JsonView::fail(const std::string& message) const {
  throw InputError(file_, pointer(), message);
}

void JsonView::expect_type(bool ok, const char* expected) const {
  if (!ok) fail(fmt::format("expected {}, got {}", expected, json_type_name(*value_)));
}

bool JsonView::has(std::string_view key) const {
  return value_->is_object() && value_->contains(key);
}

JsonView JsonView::at(std::string_view key) const {
  expect_type(value_->is_object(), "an object");
  auto it = value_->find(key);
  if (it == value_->end()) fail(fmt::format("missing required field \"{}\"", key));
  return JsonView(*it, file_, pointer_ + "/" + json_pointer_escape(key));
}

std::optional<JsonView> JsonView::get(std::string_view key) const {
  expect_type(value_->is_object(), "an object");
  auto it = value_->find(key);
  if (it == value_->end()) return std::nullopt;
  return JsonView(*it, file_, pointer_ + "/" + json_pointer_escape(key));
}

std::vector<JsonView> JsonView::elements() const {
  expect_type(value_->is_array(), "an array");
  std::vector<JsonView> out;
  out.reserve(value_->size());
  for (std::size_t i = 0; i < value_->size(); ++i) {
    out.emplace_back((*value_)[i], file_, pointer_ + "/" + std::to_string(i));
  }
  return out;
}

std::vector<std::pair<std::string, JsonView>> JsonView::members() const {
  expect_type(value_->is_object(), "an object");
  std::vector<std::pair<std::string, JsonView>> out;
  for (auto it = value_->begin(); it != value_->end(); ++it) {
    out.emplace_back(it.key(),
                     JsonView(it.value(), file_, pointer_ + "/" + json_pointer_escape(it.key())));
  }
  return out;
}

std::string JsonView::as_string() const {
  expect_type(value_->is_string(), "a string");
  return value_->get<std::string>();
}

double JsonView::as_number() const {
  expect_type(value_->is_number(), "a number");
  const double v = value_->get<double>();
  if (!std::isfinite(v)) fail("expected a finite number");
  return v;
}

std::int64_t JsonView::as_integer() const {
  // A whole number past 64 bits reaches here as a double (or, up to 2^64 - 1, as an unsigned
  // that would wrap): say it is too large, not that it is no integer.
  const bool huge_unsigned =
      value_->is_number_unsigned() && value_->get<std::uint64_t>() > std::uint64_t{INT64_MAX};
  const bool huge_float =
      value_->is_number_float() && std::abs(value_->get<double>()) >= 9223372036854775808.0;
  if (huge_unsigned || huge_float) {
    fail(fmt::format("expected an integer, got {}, beyond 64-bit integers", value_->dump()));
  }
  expect_type(value_->is_number_integer(), "an integer");
  return value_->get<std::int64_t>();
}

bool JsonView::as_bool() const {
  expect_type(value_->is_boolean(), "true or false");
  return value_->get<bool>();
}

std::string JsonView::string_or(std::string_view key, std::string fallback) const {
  auto v = get(key);
  return v ? v->as_string() : std::move(fallback);
}
double JsonView::number_or(std::string_view key, double fallback) const {
  auto v = get(key);
  return v ? v->as_number() : fallback;
}
std::int64_t JsonView::integer_or(std::string_view key, std::int64_t fallback) const {
  auto v = get(key);
  return v ? v->as_integer() : fallback;
}
bool JsonView::bool_or(std::string_view key, bool fallback) const {
  auto v = get(key);
  return v ? v->as_bool() : fallback;
}

double JsonView::as_bandwidth_Bps() const {
  expect_type(value_->is_string(), "a bandwidth string such as \"25 GB/s\" or \"200 Gb/s\"");
  bool out_of_bounds = false;
  auto v = units::parse_bandwidth_Bps(value_->get<std::string>(), &out_of_bounds);
  if (out_of_bounds) {
    fail(fmt::format("bandwidth \"{}\" is beyond what linksim accepts: at most 1 PB/s",
                     value_->get<std::string>()));
  }
  if (!v) {
    fail(fmt::format("expected a bandwidth such as \"25 GB/s\" or \"200 Gb/s\", got \"{}\"",
                     value_->get<std::string>()));
  }
  return *v;
}

double JsonView::as_time_s() const {
  expect_type(value_->is_string(), "a time string such as \"1.2 us\"");
  bool out_of_bounds = false;
  auto v = units::parse_time_s(value_->get<std::string>(), &out_of_bounds);
  if (out_of_bounds) {
    fail(fmt::format("time \"{}\" is beyond what linksim accepts: at most 1e7 s (about 116 days)",
                     value_->get<std::string>()));
  }
  if (!v) {
    fail(fmt::format("expected a time such as \"1.2 us\", \"500 ns\" or \"3 ms\", got \"{}\"",
                     value_->get<std::string>()));
  }
  return *v;
}

double JsonView::as_bytes() const {
  expect_type(value_->is_string(), "a size string such as \"80 GiB\"");
  bool out_of_bounds = false;
  auto v = units::parse_bytes(value_->get<std::string>(), &out_of_bounds);
  if (out_of_bounds) {
    fail(fmt::format("size \"{}\" is beyond what linksim accepts: at most 1 EB (1e18 bytes)",
                     value_->get<std::string>()));
  }
  if (!v) {
    fail(fmt::format("expected a size such as \"80 GiB\" or \"10 GB\", got \"{}\"",
                     value_->get<std::string>()));
  }
  return *v;
}

void JsonView::expect_only(std::initializer_list<std::string_view> allowed) const {
  std::vector<std::string> list(allowed.begin(), allowed.end());
  expect_only(list);
}

void JsonView::expect_only(const std::vector<std::string>& allowed) const {
  expect_type(value_->is_object(), "an object");
  for (auto it = value_->begin(); it != value_->end(); ++it) {
    bool known = false;
    for (const auto& a : allowed)
      known = known || a == it.key();
    if (!known) {
      throw InputError(file_, pointer_ + "/" + json_pointer_escape(it.key()),
                       fmt::format("unknown field \"{}\"; expected one of: {}", it.key(),
                                   fmt::join(allowed, ", ")));
    }
  }
}

}  // namespace linksim
