#include "sim/report/plot.hpp"

#include <fmt/format.h>

namespace linksim::report {
namespace {

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

std::string busbw_plot_script(const std::string& title, const std::vector<BusbwSeries>& series,
                              const std::string& png_path) {
  std::string s = fmt::format(
      "set terminal pngcairo size 1000,600 noenhanced\nset output {}\nset title {}\n"
      "set logscale x 2\nset format x '%.0b %BB'\nset xlabel 'message size (bytes)'\n"
      "set ylabel 'bus bandwidth (GB/s)'\nset key left top\nset grid\n",
      quoted(png_path), quoted(title));
  for (std::size_t i = 0; i < series.size(); ++i) {
    s += fmt::format("$d{} << EOD\n", i);
    for (const auto& r : series[i].rows) {
      s += fmt::format("{:.0f} {:.6g}\n", r.size_bytes, r.outcome.busbw_Bps / 1e9);
    }
    s += "EOD\n";
  }
  s += "plot ";
  for (std::size_t i = 0; i < series.size(); ++i) {
    s += fmt::format("{}$d{} using 1:2 with linespoints title {}", i ? ", " : "", i,
                     quoted(series[i].label));
  }
  return s + "\n";
}

std::string breakdown_plot_script(const std::string& title,
                                  const std::vector<work::JobResult>& results,
                                  const std::string& png_path) {
  std::string s = fmt::format(
      "set terminal pngcairo size 1000,600 noenhanced\nset output {}\nset title {}\n"
      "set style data histograms\nset style histogram rowstacked\nset style fill solid 0.8 border "
      "-1\n"
      "set boxwidth 0.6\nset ylabel 'seconds per step (average GPU)'\nset key outside right top\n"
      "set grid y\nset xtics rotate by -20\n$d << EOD\n",
      quoted(png_path), quoted(title));
  for (const auto& r : results) {
    if (!r.failure.empty()) continue;
    // Hidden communication runs beside compute; the stack shows what adds up to the step.
    s += fmt::format("{} {:.6g} {:.6g} {:.6g}\n", quoted(r.machine), r.compute_s, r.exposed_comm_s,
                     std::max(0.0, r.step_s - r.compute_s - r.exposed_comm_s));
  }
  s += "EOD\nplot $d using 2:xtic(1) title 'compute', '' using 3 title 'exposed communication', "
       "'' using 4 title 'idle / bubble'\n";
  return s;
}

}  // namespace linksim::report
