#include "sim/coll/ring_shape.hpp"

#include <map>
#include <mutex>
#include <unordered_map>

namespace linksim::coll {
namespace {

// Enough for every machine file and cluster host linksim ships many times over; a process that
// meets more shapes (a long Python session over generated machines) searches the rest afresh.
constexpr std::size_t kMaxStoredShapes = 4096;

struct Store {
  std::mutex mutex;
  std::map<RingShape, RingChoice> choices;
};

Store& store() {
  static Store s;
  return s;
}

}  // namespace

RingShape ring_shape(int ranks, const std::function<const topo::Route&(int, int)>& route,
                     const std::vector<double>& capacity_Bps) {
  RingShape shape{static_cast<double>(ranks)};
  std::unordered_map<topo::ChannelId, double> name;
  std::vector<double> capacities;
  for (int i = 0; i < ranks; ++i) {
    for (int j = 0; j < ranks; ++j) {
      if (i == j) continue;
      const topo::Route& r = route(i, j);
      shape.push_back(static_cast<double>(r.paths.size()));
      for (const topo::Path& p : r.paths) {
        shape.push_back(p.share);
        shape.push_back(static_cast<double>(p.channels.size()));
        for (topo::ChannelId c : p.channels) {
          auto [it, added] = name.emplace(c, static_cast<double>(capacities.size()));
          if (added) capacities.push_back(capacity_Bps[c]);
          shape.push_back(it->second);
        }
      }
    }
  }
  shape.insert(shape.end(), capacities.begin(), capacities.end());
  return shape;
}

RingChoice shared_ring_choice(const RingShape& shape, const std::function<RingChoice()>& search) {
  Store& s = store();
  {
    const std::lock_guard<std::mutex> lock(s.mutex);
    if (auto it = s.choices.find(shape); it != s.choices.end()) return it->second;
  }
  RingChoice choice = search();
  const std::lock_guard<std::mutex> lock(s.mutex);
  if (s.choices.size() < kMaxStoredShapes) s.choices.emplace(shape, choice);
  return choice;
}

}  // namespace linksim::coll
