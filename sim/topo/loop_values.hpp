#pragma once
// The values of one "for" loop variable, as machine links (docs/topology-format.md) and task
// graphs (docs/task-graph-format.md) write them: "lo..hi" (inclusive) or an array of integers.

#include <cstdint>
#include <optional>
#include <vector>

#include "sim/core/json_view.hpp"

namespace linksim::topo {

// Most values a range "lo..hi" may give (hi - lo <= 1,000,000), so that one typo cannot ask for
// billions.
inline constexpr std::int64_t kMaxLoopValues = 1'000'001;

// The values in file order; a bad range or an empty array fails at `v`: a range that does not
// parse or has lo > hi says so, one with more than kMaxLoopValues values says how many it has
// and the limit.
std::vector<std::int64_t> loop_values(const JsonView& v);

// How many values loop_values(v) gives, without making them; nullopt where it would fail. For
// totals checked before anything is expanded.
std::optional<std::uint64_t> loop_value_count(const JsonView& v);

}  // namespace linksim::topo
