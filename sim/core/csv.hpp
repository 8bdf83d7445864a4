#pragma once
// CSV output as RFC 4180 has it, for every --format csv.

#include <string>

namespace linksim {

// `text` as one CSV field: quoted when it holds a comma, a quote or a line break, with inner
// quotes doubled; as it is otherwise.
std::string csv_field(const std::string& text);

}  // namespace linksim
