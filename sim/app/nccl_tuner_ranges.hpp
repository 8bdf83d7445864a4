#pragma once
// From choices at sampled sizes to the size ranges of a tuner file
// (sim/report/nccl_tuner_config_format.hpp): each sampled size stands for the sizes from it up to
// the next sample (the last one up to twice itself), and neighbouring samples with the same choice
// become one range.
//
//   samples 8 -> A, 16 -> A, 32 -> none, 64 -> B   gives   [8, 31] A and [64, 127] B

#include <cstdint>
#include <optional>
#include <vector>

#include "sim/coll/request.hpp"

namespace linksim::app {

// One sampled size of one operation, and what to write for it (nullopt: nothing, NCCL's own
// choice stands).
struct TunedSize {
  std::uint64_t size_bytes = 0;
  std::optional<coll::Choice> written;
};

// A run of neighbouring samples written with the same choice: sizes first..last (indices into
// the samples), standing for min_bytes..max_bytes, both inclusive.
struct TunedRange {
  std::uint64_t min_bytes = 0;
  std::uint64_t max_bytes = 0;
  coll::Choice choice;
  std::size_t first = 0;
  std::size_t last = 0;
};

// Two choices are the same when algorithm, protocol and channel count are.
bool same_choice(const coll::Choice& a, const coll::Choice& b);

// REQUIRES: sizes strictly increasing and above 0 (std::invalid_argument otherwise).
std::vector<TunedRange> merge_tuned_sizes(const std::vector<TunedSize>& samples);

}  // namespace linksim::app
