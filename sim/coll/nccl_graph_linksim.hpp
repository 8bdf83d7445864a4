#pragma once
// What NCCL_GRAPH_DUMP_FILE would hold if NCCL chose what linksim chooses: linksim's rings as
// NCCL's ring graph (id 0). Only the ring graph: linksim's trees are built per collective from
// the ring's order (algorithms/tree.cpp), not searched per channel, and NVLS and CollNet have
// no per-channel GPU lists in linksim, so those graphs are left out rather than written empty
// (an empty graph in NCCL's dump means "not searched", which would say something false).

#include "sim/coll/communicator.hpp"
#include "sim/coll/nccl_graph.hpp"

namespace linksim::coll {

// NCCL's path type for what linksim routes between two ranks: NVL for NVLink (direct or through
// NVSwitch), NVB for a relay through one GPU, and otherwise nvidia-smi's class as NCCL names it
// (PIX, PXB, PHB; NODE is PHB, NCCL having no NODE level; SYS); NET between nodes.
NcclPathType nccl_path_type_between(const Communicator& comm, int from, int to);

// The ring graph for `comm`:
//   nchannels     ring_search().search_channels: NCCL's search channels after
//                 ncclTopoDupChannels, which connect.cc's ncclTopoPostset doubles into the
//                 channels it runs;
//   channel c     rings()[c % rings().size()], GPUs by CUDA device (the GPU's ordinal), with
//                 their ranks;
//   speedintra    ring_search().channel_GBps, the speed NCCL's search gives each channel in
//                 its own link figures; speedinter the same (NCCL sets both alike on one node);
//   typeintra     the worst path type between consecutive ranks of any ring;
//   typeinter     PIX, NCCL's starting value when there is no network;
//   samechannels  1, crossnic 0, latencyinter 0.
// REQUIRES: comm spans one node (throws std::invalid_argument otherwise: a multi-node ring graph
// would need the NICs each channel enters and leaves by, which linksim does not choose per
// channel).
NcclGraph linksim_ring_graph(const Communicator& comm);

// The dump: version 1 and the ring graph.
NcclGraphDump linksim_nccl_graphs(const Communicator& comm);

}  // namespace linksim::coll
