#pragma once
// `linksim topo graphs`: linksim's choice on a machine as NCCL's graph dump
// (NCCL_GRAPH_DUMP_FILE), and NCCL's dump from a real node compared with it.

#include <string>

#include "sim/coll/nccl_graph.hpp"
#include "sim/coll/nccl_graph_compare.hpp"
#include "sim/topo/topology.hpp"

namespace linksim::app {

// The graphs linksim chooses for a communicator of every GPU of `machine` (a cluster: of one
// host, as NCCL dumps the node it runs on), in rank order by GPU ordinal.
coll::NcclGraphDump linksim_graph_dump(const topo::Topology& machine);

// NCCL's dump `dump_text` (read from `dump_source`, named in errors) against linksim's choice on
// `machine`. Throws InputError for a bad dump, and for one whose GPUs are not the machine's
// (a dev that is no GPU of the machine, or a channel that does not hold every GPU once).
coll::NcclGraphsComparison compare_graph_dump(const topo::Topology& machine,
                                              const std::string& dump_text,
                                              const std::string& dump_source);

}  // namespace linksim::app
