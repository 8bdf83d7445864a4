#pragma once
// Names for what the engine numbers, so that results read in the caller's terms: task ids,
// GPU indices and channel ids each map to a name (topo::channel_names gives a machine's).

#include <string>
#include <vector>

namespace linksim::engine {

struct Names {
  std::vector<std::string> tasks;     // by task id
  std::vector<std::string> gpus;      // by GPU index
  std::vector<std::string> channels;  // by channel id
};

}  // namespace linksim::engine
