#include "sim/app/nccl_tuner_ranges.hpp"

#include <stdexcept>

namespace linksim::app {

bool same_choice(const coll::Choice& a, const coll::Choice& b) {
  return a.algorithm == b.algorithm && a.protocol == b.protocol && a.channels == b.channels;
}

std::vector<TunedRange> merge_tuned_sizes(const std::vector<TunedSize>& samples) {
  for (std::size_t i = 0; i < samples.size(); ++i) {
    if (samples[i].size_bytes == 0 || (i > 0 && samples[i].size_bytes <= samples[i - 1].size_bytes))
      throw std::invalid_argument("tuned sizes must be above 0 and increasing");
  }
  // The last byte sample i stands for: the byte before the next sample, or twice itself less 1.
  const auto end_of = [&](std::size_t i) {
    return i + 1 < samples.size() ? samples[i + 1].size_bytes - 1 : 2 * samples[i].size_bytes - 1;
  };
  std::vector<TunedRange> out;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    if (!samples[i].written) continue;
    const coll::Choice& c = *samples[i].written;
    if (!out.empty() && out.back().last + 1 == i && same_choice(out.back().choice, c)) {
      out.back().last = i;
      out.back().max_bytes = end_of(i);
      continue;
    }
    out.push_back({samples[i].size_bytes, end_of(i), c, i, i});
  }
  return out;
}

}  // namespace linksim::app
