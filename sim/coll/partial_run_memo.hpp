#pragma once
// What a replay's partial run of a slice pipeline (slice_pipeline.hpp, emit_with_replay) yields,
// kept per communicator so that a sweep asks for each partial run once. A sweep's large sizes
// move the same chunks per loop on the same channels (NCCL's chunk size stops growing), so
// 4, 8 and 16 GiB run the same partial runs: identical inputs, identical results. The key names
// every input of the run (the lowering's costs, the pipeline's sends with their bytes per loop,
// and how many loops the partial run has), so a hit returns exactly what the run would compute.

#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace linksim::coll {

struct PartialRunResult {
  double makespan_s = 0;
  std::vector<double> loop_end_s;  // by loop
  // The channels that reached capacity: (engine channel id, time at capacity), in id order;
  // only those, so that a memo on a cluster of many links stays small.
  std::vector<std::pair<std::size_t, double>> saturated_s;
};

class PartialRunMemo {
 public:
  // The result stored under `key`, or `compute`'s, stored. Thread-safe: `compute` runs once per
  // key, outside the lock; a thread asking for a key being computed waits for that result
  // (a sweep's sizes on several threads share their partial runs instead of each running them).
  std::shared_ptr<const PartialRunResult> get(const std::string& key,
                                              const std::function<PartialRunResult()>& compute);
  // Partial runs computed (not served from the memo), for tests.
  int computed() const;

 private:
  mutable std::mutex mutex_;
  using Pending = std::shared_future<std::shared_ptr<const PartialRunResult>>;
  std::map<std::string, Pending> runs_;
  int computed_ = 0;
};

}  // namespace linksim::coll
