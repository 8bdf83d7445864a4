#pragma once
// Serving capacity under an SLO: the highest request rate whose run meets every stated p99
// (job.slo; docs/scenario-format.md, "Serving").
//
// The search takes the run as a callable from a rate to its p99s, so that it can be tested on a
// latency model whose answer is known. It brackets the answer from `start_rate_per_s`: halving
// while the rate misses the SLO (at most max_halvings times; missing at the lowest is "no
// feasible rate"), else doubling while it meets it (at most max_doublings times; meeting at the
// highest is "unbounded"), then bisects the bracket [meets, misses] at its midpoint until its
// width is at most `tolerance` times its low end. The answer is the bracket's low end: a rate
// that was simulated and met the SLO, with a simulated rate that missed it at most
// tolerance x that above. A run is deterministic from its seed, so the search is too.
//
// It assumes latency grows with the rate, which a queue at a fixed seed shows as a rule (the
// arrivals are the same draws, closer together) but not exactly at every rate (batching can
// make a slightly faster stream a little luckier); the bracket's two ends are both simulated,
// so what the answer claims holds whatever happens in between.

#include <functional>

#include "sim/work/serving_load.hpp"

namespace linksim::work {

// The p99 latencies of one run, the figures an SLO bounds.
struct ServingP99s {
  double ttft_s = 0;
  double tpot_s = 0;
  double e2e_s = 0;
};

// Whether every bound the SLO states holds (p99 <= bound).
bool meets_slo(const ServingSlo& slo, const ServingP99s& p99);

struct RateSearchOptions {
  double start_rate_per_s = 1;  // > 0
  double tolerance = 0.01;      // relative width of the final bracket, > 0
  int max_halvings = 6;         // below the start: 1/64 of it at most
  int max_doublings = 30;       // above the start: 2^30 times it at most
};

struct ServingCapacity {
  // Some rate tried met the SLO. If not, max_rate_per_s is 0 and at_lowest holds the best the
  // run reached: its p99s at the lowest rate tried.
  bool feasible = false;
  // The SLO was missed at a rate tried (failing_rate_per_s). False: met even at the highest rate
  // tried, which then is max_rate_per_s (the requests arrive all but at once; more requests
  // would be needed to find the limit).
  bool bounded = false;
  double max_rate_per_s = 0;      // highest rate tried that meets the SLO
  double failing_rate_per_s = 0;  // lowest rate tried above it that misses (bounded only)
  double lowest_rate_per_s = 0;   // lowest rate tried
  ServingP99s at_lowest;          // the p99s there
  double tolerance = 0;
  int rates_simulated = 0;
};

// The search above; `p99_at` runs the queue at a rate.
ServingCapacity search_capacity(const std::function<ServingP99s(double rate_per_s)>& p99_at,
                                const ServingSlo& slo, const RateSearchOptions& options);

}  // namespace linksim::work
