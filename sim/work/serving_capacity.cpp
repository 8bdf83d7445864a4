#include "sim/work/serving_capacity.hpp"

#include <optional>

namespace linksim::work {

bool meets_slo(const ServingSlo& slo, const ServingP99s& p99) {
  if (p99.ttft_s > slo.ttft_p99_s || p99.tpot_s > slo.tpot_p99_s) return false;
  return !slo.e2e_p99_s || p99.e2e_s <= *slo.e2e_p99_s;
}

ServingCapacity search_capacity(const std::function<ServingP99s(double rate_per_s)>& p99_at,
                                const ServingSlo& slo, const RateSearchOptions& options) {
  ServingCapacity c;
  c.tolerance = options.tolerance;
  auto meets_at = [&](double rate) {
    ++c.rates_simulated;
    const ServingP99s p99 = p99_at(rate);
    // Rates only go below the start while they miss, so the lowest tried is the last of those.
    if (c.rates_simulated == 1 || rate < c.lowest_rate_per_s) {
      c.lowest_rate_per_s = rate;
      c.at_lowest = p99;
    }
    return meets_slo(slo, p99);
  };

  // Bracket: `low` meets the SLO, `high` (once known) misses it.
  double low = options.start_rate_per_s;
  std::optional<double> high;
  for (int halvings = 0; !meets_at(low); ++halvings) {
    if (halvings == options.max_halvings) return c;  // not even the lowest rate meets it
    high = low;
    low /= 2;
  }
  c.feasible = true;
  for (int doublings = 0; !high && doublings < options.max_doublings; ++doublings) {
    if (meets_at(2 * low)) {
      low *= 2;
    } else {
      high = 2 * low;
    }
  }
  if (!high) {
    c.max_rate_per_s = low;
    return c;
  }

  // Bisect to the tolerance.
  while (*high - low > options.tolerance * low) {
    const double mid = (low + *high) / 2;
    if (meets_at(mid)) {
      low = mid;
    } else {
      high = mid;
    }
  }
  c.bounded = true;
  c.max_rate_per_s = low;
  c.failing_rate_per_s = *high;
  return c;
}

}  // namespace linksim::work
