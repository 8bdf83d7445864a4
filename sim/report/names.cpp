#include "sim/report/names.hpp"

namespace linksim::report {

std::vector<std::string> channel_names(const topo::Topology& topology) {
  std::vector<std::string> names;
  names.reserve(topology.channel_count());
  for (topo::ChannelId c = 0; c < topology.channel_count(); ++c) {
    names.push_back(topology.channel_name(c));
  }
  return names;
}

}  // namespace linksim::report
