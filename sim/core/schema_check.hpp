#pragma once
// Structural validation of a document against a JSON Schema (draft 7), with valijson. The
// loader does the semantic checks; this one catches shape errors and keeps the schema honest.

#include <string>
#include <vector>

#include "sim/core/json_view.hpp"

namespace linksim {

// Problems as "JSON pointer: message"; empty when the document conforms.
std::vector<std::string> schema_violations(const Json& document, const Json& schema);

}  // namespace linksim
