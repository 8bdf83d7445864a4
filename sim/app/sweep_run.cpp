#include "sim/app/sweep_run.hpp"

#include "sim/core/parallel_cases.hpp"

namespace linksim::app {

std::vector<std::size_t> rank_points(std::size_t point_count, int rank, int ranks) {
  std::vector<std::size_t> out;
  for (std::size_t i = static_cast<std::size_t>(rank); i < point_count;
       i += static_cast<std::size_t>(ranks))
    out.push_back(i);
  return out;
}

std::vector<std::string> sweep_rows(const SweepGrid& grid, const std::vector<std::size_t>& points,
                                    SweepFormat format, int threads,
                                    const std::function<void(std::size_t, std::size_t)>& progress) {
  std::vector<std::string> rows(points.size());
  CaseProgress case_progress;
  if (progress) {
    // run_cases calls this one call at a time.
    case_progress.finished = [&](std::size_t finished) { progress(finished, points.size()); };
  }
  run_cases(
      points.size(), threads, [&](std::size_t i) { rows[i] = sweep_row(grid, points[i], format); },
      case_progress);
  return rows;
}

std::string sweep_output(const SweepGrid& grid, SweepFormat format,
                         const std::vector<std::string>& rows) {
  if (format == SweepFormat::csv) {
    std::string out = sweep_csv_header(grid);
    for (const auto& r : rows)
      out += r;
    return out;
  }
  Json all = Json::array();
  for (const auto& r : rows)
    all.push_back(parse_json_text(r, grid.file));  // each row came from Json::dump: exact
  return all.dump(2) + "\n";
}

std::string run_sweep(const SweepGrid& grid, SweepFormat format, int threads) {
  return sweep_output(grid, format,
                      sweep_rows(grid, rank_points(grid.point_count(), 0, 1), format, threads));
}

}  // namespace linksim::app
