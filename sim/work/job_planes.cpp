#include "sim/work/job_planes.hpp"

namespace linksim::work {

bool off_planes(const coll::PlaneCopies& planes, const topo::Route& route) {
  for (const topo::Path& p : route.paths) {
    for (topo::ChannelId c : p.channels) {
      if (c < planes.copy_of.size() && planes.copy_of[c] != coll::PlaneCopies::kOffPlanes) {
        return false;
      }
    }
  }
  return true;
}

void fill_left_out_planes(const coll::PlaneCopies& planes, engine::Timeline& tl) {
  for (std::size_t c = 0; c < planes.copy_of.size() && c < tl.channels.size(); ++c) {
    const topo::ChannelId kept = planes.copy_of[c];
    if (kept != coll::PlaneCopies::kOffPlanes && kept != c) tl.channels[c] = tl.channels[kept];
  }
  // Past the topology's channels are the collectives' per-rank caps, each shared by the rank's
  // flows on every plane: the reduced run moved 1/copies of their bytes, at the same times.
  for (std::size_t c = planes.copy_of.size(); c < tl.channels.size(); ++c)
    tl.channels[c].bytes *= planes.copies;
}

}  // namespace linksim::work
