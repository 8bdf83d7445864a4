#pragma once
// gnuplot scripts (data inline) for the pictures a person would rather look at than read:
// busbw against message size per machine, and the step breakdown per machine. The CLI runs
// gnuplot on them; nothing here touches files or processes.

#include <string>
#include <vector>

#include "sim/coll/sweep.hpp"
#include "sim/work/job_sim.hpp"

namespace linksim::report {

struct BusbwSeries {
  std::string label;
  std::vector<coll::SweepRow> rows;
};

std::string busbw_plot_script(const std::string& title, const std::vector<BusbwSeries>& series,
                              const std::string& png_path);
std::string breakdown_plot_script(const std::string& title,
                                  const std::vector<work::JobResult>& results,
                                  const std::string& png_path);

}  // namespace linksim::report
