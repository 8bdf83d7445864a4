#pragma once
// A sweep grid (docs/sweep-format.md, docs/sweep.schema.json): the points `linksim sweep` runs,
// read and checked before any of them runs. A grid is a list of dimensions, each a key and its
// values; its points are every combination, in the order the dimensions are written with the
// last one varying fastest (the grid's nesting order, which is the output's row order).
//
// Two kinds: a scenario grid (scenario x machine x nodes x plan fields, each point one
// `linksim run SCENARIO -t MACHINE --nodes N` with the plan's fields replaced) and an
// nccl-tests grid (machine x nodes x np x size, each point one `linksim nccl-tests` run of one
// size of one binary).

#include <cstddef>
#include <string>
#include <vector>

#include "sim/core/json_view.hpp"

namespace linksim::app {

enum class SweepKind { scenario, nccl_tests };

struct SweepDimension {
  std::string key;           // "scenario", "machine", "nodes", "tensor", "size", ...
  std::vector<Json> values;  // at least one, each checked for the key
};

struct SweepGrid {
  std::string file;
  SweepKind kind = SweepKind::scenario;
  std::vector<SweepDimension> dimensions;  // outermost first, as written
  // nccl-tests grids: the binary, its arguments other than the sizes, and the NCCL environment
  // ("NAME=VALUE") every point sees.
  std::string binary;
  std::vector<std::string> arguments;
  std::vector<std::string> environment;

  std::size_t point_count() const;
  // Point `index`'s value of each dimension, in the dimensions' order. REQUIRES index <
  // point_count().
  std::vector<const Json*> point(std::size_t index) const;
  // The dimension named `key`, or nullptr.
  const SweepDimension* dimension(const std::string& key) const;
};

// Most points one grid may have: a larger sweep is several files (or a job array).
inline constexpr std::size_t kMaxSweepPoints = 1'000'000;

// The plan fields a scenario grid may vary (work::ParallelPlan's, spelled as the scenario's
// "plan" spells them).
const std::vector<std::string>& sweep_plan_keys();

// Reads and checks a grid: its own rules first (an unknown key, an empty dimension, a value of
// the wrong kind), then docs/sweep.schema.json, then every scenario, machine and nccl-tests
// argument it names (loaded or parsed once each). Throws InputError naming the grid file and
// the JSON pointer at fault ("/grid/machine/2").
SweepGrid load_sweep_grid(const std::string& path);

}  // namespace linksim::app
