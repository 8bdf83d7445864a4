#include "sim/core/text_file.hpp"

#include <fstream>
#include <sstream>

#include "sim/core/error.hpp"

namespace linksim {

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", "cannot open file for reading");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

}  // namespace linksim
