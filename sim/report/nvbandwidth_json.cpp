#include "sim/report/nvbandwidth_json.hpp"

#include <cmath>
#include <cstdio>

namespace linksim::report {
namespace {

// valueToString(double) with precision 17, significant digits, no special floats.
std::string real_text(double v) {
  if (std::isnan(v)) return "null";
  if (std::isinf(v)) return v < 0 ? "-1e+9999" : "1e+9999";
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%.17g", v);
  std::string s = buffer;
  if (s.find('.') == std::string::npos && s.find('e') == std::string::npos) s += ".0";
  return s;
}

void append_hex(std::string& out, unsigned unit) {
  char buffer[8];
  std::snprintf(buffer, sizeof buffer, "\\u%04x", unit & 0xffff);
  out += buffer;
}

// utf8ToCodepoint(): the code point starting at s[i] (advancing i past it); malformed or
// truncated sequences become U+FFFD.
unsigned next_codepoint(const std::string& s, std::size_t& i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned first = byte(i);
  const std::size_t left = s.size() - i;
  if (first < 0x80) return first;
  if (first < 0xE0) {
    if (left < 2) return 0xFFFD;
    const unsigned c = ((first & 0x1F) << 6) | (byte(i + 1) & 0x3F);
    i += 1;
    return c < 0x80 ? 0xFFFD : c;
  }
  if (first < 0xF0) {
    if (left < 3) return 0xFFFD;
    const unsigned c = ((first & 0x0F) << 12) | ((byte(i + 1) & 0x3F) << 6) | (byte(i + 2) & 0x3F);
    i += 2;
    if (c >= 0xD800 && c <= 0xDFFF) return 0xFFFD;
    return c < 0x800 ? 0xFFFD : c;
  }
  if (first < 0xF8) {
    if (left < 4) return 0xFFFD;
    const unsigned c = ((first & 0x07) << 18) | ((byte(i + 1) & 0x3F) << 12) |
                       ((byte(i + 2) & 0x3F) << 6) | (byte(i + 3) & 0x3F);
    i += 3;
    return c < 0x10000 ? 0xFFFD : c;
  }
  return 0xFFFD;
}

// valueToQuotedStringN() with emitUTF8 off.
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default: {
        unsigned cp = next_codepoint(s, i);
        if (cp < 0x20) {
          append_hex(out, cp);
        } else if (cp < 0x80) {
          out += static_cast<char>(cp);
        } else if (cp < 0x10000) {
          append_hex(out, cp);
        } else {
          cp -= 0x10000;
          append_hex(out, 0xd800 + ((cp >> 10) & 0x3ff));
          append_hex(out, 0xdc00 + (cp & 0x3ff));
        }
      }
    }
  }
  return out + "\"";
}

// BuiltStyledStreamWriter's state and steps, named as there.
class StyledWriter {
 public:
  std::string write(const nlohmann::json& root) {
    indented_ = true;
    write_value(root);
    return std::move(out_);
  }

 private:
  void write_indent() { out_ += "\n" + indent_; }
  void write_with_indent(const std::string& s) {
    if (!indented_) write_indent();
    out_ += s;
    indented_ = false;
  }
  void write_value(const nlohmann::json& v) {
    switch (v.type()) {
      case nlohmann::json::value_t::null:
      case nlohmann::json::value_t::discarded:
        out_ += "null";
        break;
      case nlohmann::json::value_t::boolean:
        out_ += v.get<bool>() ? "true" : "false";
        break;
      case nlohmann::json::value_t::number_integer:
        out_ += std::to_string(v.get<std::int64_t>());
        break;
      case nlohmann::json::value_t::number_unsigned:
        out_ += std::to_string(v.get<std::uint64_t>());
        break;
      case nlohmann::json::value_t::number_float:
        out_ += real_text(v.get<double>());
        break;
      case nlohmann::json::value_t::string:
        out_ += quoted(v.get_ref<const std::string&>());
        break;
      case nlohmann::json::value_t::binary:
        out_ += "null";
        break;
      case nlohmann::json::value_t::array:
        write_array(v);
        break;
      case nlohmann::json::value_t::object:
        write_object(v);
        break;
    }
  }
  void write_object(const nlohmann::json& v) {
    if (v.empty()) {
      out_ += "{}";
      return;
    }
    write_with_indent("{");
    indent_ += "\t";
    std::size_t left = v.size();
    for (const auto& [name, child] : v.items()) {
      write_with_indent(quoted(name));
      out_ += " : ";
      write_value(child);
      if (--left > 0) out_ += ",";
    }
    indent_.pop_back();
    write_with_indent("}");
  }
  void write_array(const nlohmann::json& v) {
    if (v.empty()) {
      out_ += "[]";
      return;
    }
    write_with_indent("[");
    indent_ += "\t";
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (!indented_) write_indent();
      indented_ = true;
      write_value(v[i]);
      indented_ = false;
      if (i + 1 < v.size()) out_ += ",";
    }
    indent_.pop_back();
    write_with_indent("]");
  }

  std::string out_;
  std::string indent_;
  bool indented_ = false;
};

}  // namespace

std::string jsoncpp_styled(const nlohmann::json& value) {
  return StyledWriter().write(value) + "\n\n";
}

}  // namespace linksim::report
