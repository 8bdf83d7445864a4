#include "sim/work/comm_record.hpp"

namespace linksim::work {

std::vector<engine::CommOp> comm_ops(const std::vector<CommRecord>& records) {
  std::vector<engine::CommOp> ops;
  ops.reserve(records.size());
  for (const auto& r : records)
    ops.push_back({r.first_task, r.end, r.gpus});
  return ops;
}

}  // namespace linksim::work
