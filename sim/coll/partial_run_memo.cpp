#include "sim/coll/partial_run_memo.hpp"

namespace linksim::coll {

std::shared_ptr<const PartialRunResult> PartialRunMemo::get(
    const std::string& key, const std::function<PartialRunResult()>& compute) {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    auto it = runs_.find(key);
    if (it != runs_.end()) return it->second;
  }
  auto run = std::make_shared<const PartialRunResult>(compute());
  const std::lock_guard<std::mutex> lock(mutex_);
  ++computed_;
  return runs_.emplace(key, std::move(run)).first->second;
}

int PartialRunMemo::computed() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return computed_;
}

}  // namespace linksim::coll
