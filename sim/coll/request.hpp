#pragma once
// What a caller asks of a collective, and how the planner chose to run it.

#include <optional>

#include "sim/coll/collective.hpp"

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
};

struct Choice {
  Algorithm algorithm = Algorithm::ring;
  Protocol protocol = Protocol::simple;
  int channels = 1;
};

}  // namespace linksim::coll
