#include "sim/coll/partial_run_memo.hpp"

#include <exception>

namespace linksim::coll {

std::shared_ptr<const PartialRunResult> PartialRunMemo::get(
    const std::string& key, const std::function<PartialRunResult()>& compute) {
  std::unique_lock<std::mutex> lock(mutex_);
  auto it = runs_.find(key);
  if (it != runs_.end()) {
    const Pending pending = it->second;
    lock.unlock();  // the thread computing it stores its result under the lock
    return pending.get();
  }
  std::promise<std::shared_ptr<const PartialRunResult>> promise;
  runs_.emplace(key, promise.get_future().share());
  ++computed_;
  lock.unlock();
  try {
    auto run = std::make_shared<const PartialRunResult>(compute());
    promise.set_value(run);
    return run;
  } catch (...) {
    // Whoever waits for this key gets the same error the computation raised.
    promise.set_exception(std::current_exception());
    throw;
  }
}

int PartialRunMemo::computed() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return computed_;
}

}  // namespace linksim::coll
