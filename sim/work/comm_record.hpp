#pragma once
// One communication operation of a job as the accounting sees it: a collective, a pipeline
// send or an offload copy, the span of engine tasks it was lowered into, and its GPUs.

#include <optional>
#include <string>
#include <vector>

#include "sim/coll/collective.hpp"
#include "sim/coll/request.hpp"
#include "sim/engine/summary.hpp"
#include "sim/engine/task.hpp"

namespace linksim::work {

struct CommRecord {
  std::string group;  // "TP", "DP", "PP", "EP", "offload"
  coll::Op op;
  engine::TaskId first_task = 0;  // tasks [first_task, end] belong to it
  engine::TaskId end = 0;
  double size_bytes = 0;
  std::vector<int> gpus;  // engine GPU indices of its ranks
  // A collective's algorithm, protocol and channels as the planner chose them; none for sends
  // and copies. Only traces show it.
  std::optional<coll::Choice> choice{};
};

// The records as the engine's accounting declares operations (sim/engine/summary.hpp).
std::vector<engine::CommOp> comm_ops(const std::vector<CommRecord>& records);

}  // namespace linksim::work
