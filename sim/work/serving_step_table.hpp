#pragma once
// A serving iteration's time against its size (tokens of a prefill, sequences of a decode
// step): engine simulations at powers of two up to a largest size, linear in between
// (sim/work/serving.hpp).

#include <algorithm>
#include <utility>
#include <vector>

namespace linksim::work {

class StepTable {
 public:
  StepTable() = default;  // empty: at() must not be called
  // `time(size)` is called at 1, 2, 4, ... and at `max_size` (>= 1).
  template <typename Time>
  StepTable(int max_size, Time time) {
    for (int x = 1;; x *= 2) {
      const int size = std::min(x, max_size);
      points_.emplace_back(size, time(size));
      if (size == max_size) break;
    }
  }
  // Clamped to the first and last points outside them.
  double at(double size) const {
    if (size <= points_.front().first) return points_.front().second;
    for (std::size_t i = 1; i < points_.size(); ++i) {
      const auto [x1, t1] = points_[i];
      if (size <= x1) {
        const auto [x0, t0] = points_[i - 1];
        return t0 + (t1 - t0) * (size - x0) / (x1 - x0);
      }
    }
    return points_.back().second;
  }

 private:
  std::vector<std::pair<double, double>> points_;
};

}  // namespace linksim::work
