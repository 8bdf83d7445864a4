#pragma once
// The request stream of a serving job (the scenario's "job" with kind "serving";
// docs/scenario-format.md, sim/work/serving.hpp).

#include <cstdint>

namespace linksim::work {

// A length drawn uniformly from [min, max] (min == max: fixed).
struct LengthRange {
  int min = 1;
  int max = 1;
  double mean() const { return (min + max) / 2.0; }
};

struct ServingLoad {
  double request_rate_per_s = 1;  // Poisson arrivals at this mean rate
  int requests = 100;             // requests simulated
  LengthRange input_tokens{512, 512};
  LengthRange output_tokens{128, 128};
  int max_batch = 256;     // most sequences decoding at once (vLLM's max_num_seqs)
  std::uint64_t seed = 1;  // arrivals and lengths are drawn from this seed only
};

}  // namespace linksim::work
