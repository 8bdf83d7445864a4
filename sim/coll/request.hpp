#pragma once
// What a caller asks of a collective, and how the planner chose to run it.

#include <algorithm>
#include <optional>
#include <vector>

#include "sim/coll/collective.hpp"
#include "sim/core/nccl_version.hpp"

namespace linksim::coll {

// One collective call. `size_bytes` follows nccl-tests' "size" column: the buffer for
// all_reduce, broadcast, reduce and sendrecv; the whole gathered buffer (n x per-rank part)
// for all_gather and reduce_scatter; each rank's whole send buffer for alltoall.
struct Request {
  Op op = Op::all_reduce;
  double size_bytes = 0;
  int root = 0;
  std::optional<Algorithm> algorithm;  // NCCL_ALGO
  std::optional<Protocol> protocol;    // NCCL_PROTO
  // NCCL_ALGO / NCCL_PROTO as lists (nccl_selection.hpp): the planner picks only among these.
  // Empty allows every one.
  std::vector<Algorithm> allowed_algorithms;
  std::vector<Protocol> allowed_protocols;
  // The NCCL release whose data movement to follow where releases differ (NCCL_VERSION_CODE,
  // sim/core/nccl_version.hpp): so far how NVLS spreads a message over its channels
  // (channel_work.hpp) and a tree's Simple chunk (pipeline_constants.hpp).
  int nccl_version = kModelledNcclVersion;
  // Run the fastest candidate, each simulated, instead of the one NCCL's cost model picks
  // (nccl_tuner_model.hpp): what the hardware could do, rather than what NCCL does on it.
  bool simulate_every_candidate = false;
  // Simulate every loop of a lone collective's slice pipeline, even where its time could be
  // replayed from a repeating period or taken from its trend (slice_pipeline.hpp): slower.
  bool simulate_every_loop = false;
  // NCCL_MIN_NCHANNELS / NCCL_MAX_NCHANNELS: bounds on the channels Ring, Tree, PAT and CollNet
  // run (NCCL clamps comm->nChannels, from which each call's channel rule starts; NVLS keeps
  // its own count, NCCL_NVLS_NCHANNELS). 0: no bound.
  int min_channels = 0;
  int max_channels = 0;
};

// Whether the request's lists allow `a` / `p`.
inline bool allows(const Request& r, Algorithm a) {
  return r.allowed_algorithms.empty() ||
         std::find(r.allowed_algorithms.begin(), r.allowed_algorithms.end(), a) !=
             r.allowed_algorithms.end();
}
inline bool allows(const Request& r, Protocol p) {
  return r.allowed_protocols.empty() ||
         std::find(r.allowed_protocols.begin(), r.allowed_protocols.end(), p) !=
             r.allowed_protocols.end();
}

struct Choice {
  Algorithm algorithm = Algorithm::ring;
  Protocol protocol = Protocol::simple;
  int channels = 1;
};

}  // namespace linksim::coll
