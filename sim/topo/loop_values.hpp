#pragma once
// The values of one "for" loop variable, as machine links (docs/topology-format.md) and task
// graphs (docs/task-graph-format.md) write them: "lo..hi" (inclusive) or an array of integers.

#include <cstdint>
#include <vector>

#include "sim/core/json_view.hpp"

namespace linksim::topo {

// Most values a range "lo..hi" may give (hi - lo <= 1,000,000), so that one typo cannot ask for
// billions.
inline constexpr std::int64_t kMaxLoopValues = 1'000'001;

// The values in file order; a bad range or an empty array fails at `v`.
std::vector<std::int64_t> loop_values(const JsonView& v);

}  // namespace linksim::topo
