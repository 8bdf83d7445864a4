#include "calibrate/smi_discovery.hpp"

#include <cstdio>

#include "calibrate/text_lines.hpp"
#include "sim/core/error.hpp"
#include "sim/topo/smi_matrix_parse.hpp"

namespace linksim::calibrate {

SmiDiscovery discover_smi_matrix(const std::string& saved_path) {
  if (!saved_path.empty()) {
    return {topo::parse_smi_printout(read_text_file(saved_path), saved_path), ""};
  }
  std::string text;
  if (FILE* pipe = popen("nvidia-smi topo -m 2>/dev/null", "r")) {
    char buffer[4096];
    std::size_t n = 0;
    while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0)
      text.append(buffer, n);
    if (pclose(pipe) != 0) text.clear();
  }
  if (text.empty())
    return {std::nullopt, "nvidia-smi topo -m did not run: NVLinks are not discovered"};
  try {
    return {topo::parse_smi_printout(text, "nvidia-smi topo -m"), ""};
  } catch (const InputError& e) {
    return {std::nullopt, std::string("could not read nvidia-smi topo -m (") + e.what() +
                              "): NVLinks are not discovered"};
  }
}

}  // namespace linksim::calibrate
