#pragma once
// gnuplot scripts (data inline) for the pictures a person would rather look at than read:
// busbw against message size per machine, and the step breakdown per machine. The scripts set
// neither the terminal nor the output: whoever runs gnuplot adds those (gnuplot_terminal_for).
// Every piece of text from an input file (titles, machine names) is quoted so that gnuplot
// expands nothing in it. Nothing here touches files or processes.

#include <optional>
#include <string>
#include <vector>

#include "sim/coll/sweep.hpp"
#include "sim/work/job_sim.hpp"

namespace linksim::report {

struct BusbwSeries {
  std::string label;
  std::vector<coll::SweepRow> rows;
};

// The gnuplot terminal for a picture file, chosen by its extension (.png, .svg, .pdf); nullopt
// for any other.
std::optional<std::string> gnuplot_terminal_for(const std::string& picture_path);

std::string busbw_plot_script(const std::string& title, const std::vector<BusbwSeries>& series);
std::string breakdown_plot_script(const std::string& title,
                                  const std::vector<work::JobResult>& results);

}  // namespace linksim::report
