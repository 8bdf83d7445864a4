#include "sim/topo/device_identity.hpp"

#include <regex>

namespace linksim::topo {

bool is_pci_bus_id(const std::string& text) {
  static const std::regex bus_id(R"([0-9a-fA-F]{1,8}:[0-9a-fA-F]{1,2}:[0-9a-fA-F]{1,2}\.[0-7])");
  return std::regex_match(text, bus_id);
}

bool is_hex_id(const std::string& text) {
  static const std::regex hex(R"(0x[0-9a-fA-F]{1,16})");
  return std::regex_match(text, hex);
}

}  // namespace linksim::topo
