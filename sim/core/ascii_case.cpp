#include "sim/core/ascii_case.hpp"

#include <algorithm>
#include <cctype>

namespace linksim {

std::string ascii_lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

}  // namespace linksim
