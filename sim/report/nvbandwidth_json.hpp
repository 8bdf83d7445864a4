#pragma once
// JSON text exactly as nvbandwidth's -j prints it: jsoncpp 1.9.5 (bundled in the tool's json/)
// Value::toStyledString(), which writes through a default StreamWriterBuilder: tab indentation,
// "key" : value with a space on each side of the colon, an object or array that is a member's
// value opening on its own line, every non-empty array one element per line (comment style
// "All"), members in byte order of their names, reals as "%.17g" with ".0" added when that
// looks like an integer, NaN as null, and non-ASCII characters as \u escapes. The tool's
// print() adds a newline after toStyledString()'s own, so the text ends in "}\n\n".

#include <nlohmann/json.hpp>
#include <string>

namespace linksim::report {

// REQUIRES: objects keep their members sorted (nlohmann::json's default std::map does).
std::string jsoncpp_styled(const nlohmann::json& value);

}  // namespace linksim::report
