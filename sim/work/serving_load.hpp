#pragma once
// The request stream of a serving job (the scenario's "job" with kind "serving";
// docs/scenario-format.md, sim/work/serving.hpp), and the latency objective it may state.

#include <cstdint>
#include <optional>

namespace linksim::work {

// A length drawn uniformly from [min, max] (min == max: fixed).
struct LengthRange {
  int min = 1;
  int max = 1;
  double mean() const { return (min + max) / 2.0; }
};

// A service-level objective on the 99th percentiles of a run's latencies (job.slo); each bound
// is above 0. A run meets it when every stated p99 is at most its bound.
struct ServingSlo {
  double ttft_p99_s = 0;            // time to first token
  double tpot_p99_s = 0;            // time per output token
  std::optional<double> e2e_p99_s;  // end to end; absent: not bounded
};

struct ServingLoad {
  double request_rate_per_s = 1;  // Poisson arrivals at this mean rate
  // Whether the scenario states request_rate. It may leave it out only with an SLO: linksim then
  // searches the highest rate that meets it (sim/work/serving_capacity.hpp).
  bool rate_stated = true;
  int requests = 100;  // requests simulated
  LengthRange input_tokens{512, 512};
  LengthRange output_tokens{128, 128};
  int max_batch = 256;     // most sequences decoding at once (vLLM's max_num_seqs)
  std::uint64_t seed = 1;  // arrivals and lengths are drawn from this seed only
  std::optional<ServingSlo> slo;
};

}  // namespace linksim::work
