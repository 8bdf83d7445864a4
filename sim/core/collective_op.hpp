#pragma once
// The collective operations, as a vocabulary every layer shares: coll runs them, and a machine
// file's fitted corrections (topo::CollectiveCalibration) are kept per operation. Names are
// nccl-tests' (all_reduce, ...), which are also the machine format's keys.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace linksim {

// The last four are nccl-tests binaries NCCL runs as grouped sends and receives: scatter and
// gather from and to a root, alltoallv (nccl-tests' distance-weighted pattern) and hypercube
// (an all-gather by recursive doubling).
enum class CollectiveOp {
  all_reduce,
  all_gather,
  reduce_scatter,
  broadcast,
  reduce,
  alltoall,
  sendrecv,
  scatter,
  gather,
  alltoallv,
  hypercube
};

std::string_view to_string(CollectiveOp op);
// nccl-tests' names, any case, and NCCL's ("AllReduce", "allgather", "ReduceScatter").
std::optional<CollectiveOp> collective_op_from_string(std::string_view name);
// Every name, in the enum's order.
std::vector<std::string> collective_op_names();

// Orders operations by name, so that files and reports list them alphabetically whatever the
// enum's order.
struct CollectiveOpNameOrder {
  bool operator()(CollectiveOp a, CollectiveOp b) const { return to_string(a) < to_string(b); }
};

}  // namespace linksim
