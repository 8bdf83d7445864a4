#pragma once
// NCCL's graph dump from a real node against what linksim chooses on the machine file that
// describes it, graph by graph (matched by id): how many channels each found, each channel's
// GPU order, the per-channel speed and the path type inside the node.
//
// A channel's order is a cycle: a rotation of it is the same ring (NCCL's channel may start at
// any rank). The reverse direction is not the same ring: rank i sends to rank i+1, so a
// reversed ring runs every hop over the other direction of its link, which differs wherever
// the two directions differ (a NIC at one end, a PCIe switch's uplink shared with other
// traffic, a one-way link count); it is reported as its own kind of difference, "reversed".

#include <string>
#include <vector>

#include "sim/coll/nccl_graph.hpp"
#include "sim/core/json_view.hpp"

namespace linksim::coll {

enum class NcclChannelMatch { same, reversed, different };
std::string_view to_string(NcclChannelMatch m);

struct NcclChannelComparison {
  int index = 0;
  std::vector<std::int64_t> nccl_devs;
  std::vector<std::int64_t> linksim_devs;
  NcclChannelMatch match = NcclChannelMatch::same;
};

struct NcclGraphComparison {
  int id = 0;
  bool compared = false;  // false: linksim has no graph of this id
  int nccl_channels = 0;
  int linksim_channels = 0;
  double nccl_speed_intra_Bps = 0;
  double linksim_speed_intra_Bps = 0;
  NcclPathType nccl_type_intra = NcclPathType::loc;
  NcclPathType linksim_type_intra = NcclPathType::loc;
  // The first min(nccl_channels, linksim_channels) channels, index by index.
  std::vector<NcclChannelComparison> channels;
  // One line per difference, in the order: channel count, channel orders, speed per channel,
  // channels x speed (when the counts differ), path type.
  std::vector<std::string> differences;
};

struct NcclGraphsComparison {
  std::vector<NcclGraphComparison> graphs;  // NCCL's graphs, in the dump's order
  bool same() const;                        // every graph linksim has matches NCCL's
};

// Speeds within this fraction of the larger are the same: NCCL writes a float's "%g" of a
// figure from its table of search speeds, so an exact match would say nothing.
inline constexpr double kNcclSpeedTolerance = 0.005;

NcclGraphsComparison compare_nccl_graphs(const NcclGraphDump& nccl, const NcclGraphDump& linksim);

// The report: a line per graph, "graph 0 (ring): same" or "graph 0 (ring): N differences" and
// each difference indented on its own line; graphs linksim does not have are named as not
// compared. Ends with "same" or "different".
std::string format_nccl_graph_comparison(const NcclGraphsComparison& c);
// The same as a value: {"same": bool, "graphs": [{"id", "name", "compared", "nccl": {...},
// "linksim": {...}, "channels": [{"index", "match", "nccl", "linksim"}], "differences"}]},
// speeds in bytes per second.
Json nccl_graph_comparison_json(const NcclGraphsComparison& c);

}  // namespace linksim::coll
