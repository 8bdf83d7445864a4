#pragma once
// A point-to-point send as NCCL moves it between two GPUs (ncclSend/ncclRecv, one way): the
// Simple protocol over the pair's route, each path paying the pairwise hop latency once, the
// bytes inflated by the protocol's wire efficiency. Jobs' pipeline sends and task graphs'
// GPU-to-GPU transfers both cost this, through the one placement (sim/work/placement.hpp).

#include <vector>

#include "sim/coll/communicator.hpp"
#include "sim/engine/simulation.hpp"

namespace linksim::coll {

// The paths a send over the two-rank communicator `pair` (rank 0 sends to rank 1) takes, added
// to `sim`; with `keep_path`, only the planes it marks (route_planes.hpp).
std::vector<engine::PathShare> add_send_paths(engine::Simulation& sim, const Communicator& pair,
                                              const std::vector<bool>* keep_path = nullptr);

// The bytes a send of `bytes` puts on the wire (Simple protocol).
double send_wire_bytes(double bytes);

}  // namespace linksim::coll
