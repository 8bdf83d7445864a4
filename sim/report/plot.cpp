#include "sim/report/plot.hpp"

#include <fmt/format.h>

#include <filesystem>

namespace linksim::report {
namespace {

// A gnuplot single-quoted string: the one form in which gnuplot expands nothing (double-quoted
// strings run `backquoted` commands). A quote is doubled; control characters become spaces.
std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += '\'';
    out += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? ' ' : c;
  }
  return out + "'";
}

// A datablock label: a double-quoted field (the only quoting gnuplot's data reader knows). Data
// lines are never expanded, so only the quote itself and control characters need replacing.
std::string data_label(const std::string& s) {
  std::string out = "\"";
  for (char c : s)
    out += (c == '"' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? ' ' : c;
  return out + "\"";
}

}  // namespace

std::optional<std::string> gnuplot_terminal_for(const std::string& picture_path) {
  const std::string ext = std::filesystem::path(picture_path).extension().string();
  if (ext == ".png") return "pngcairo size 1000,600 noenhanced";
  if (ext == ".svg") return "svg size 1000,600 noenhanced";
  if (ext == ".pdf") return "pdfcairo size 10in,6in noenhanced";
  return std::nullopt;
}

std::string busbw_plot_script(const std::string& title, const std::vector<BusbwSeries>& series) {
  std::string s = fmt::format(
      "set title {}\n"
      "set logscale x 2\nset format x '%.0b %BB'\nset xlabel 'message size (bytes)'\n"
      "set ylabel 'bus bandwidth (GB/s)'\nset key left top\nset grid\n",
      quoted(title));
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
                                  const std::vector<work::JobResult>& results) {
  std::string s = fmt::format(
      "set title {}\n"
      "set style data histograms\nset style histogram rowstacked\nset style fill solid 0.8 border "
      "-1\n"
      "set boxwidth 0.6\nset ylabel 'seconds per step (average GPU)'\nset key outside right top\n"
      "set grid y\nset xtics rotate by -20\n$d << EOD\n",
      quoted(title));
  for (const auto& r : results) {
    if (!r.failure.empty()) continue;
    // Hidden communication runs beside compute; the stack shows what adds up to the step.
    s += fmt::format("{} {:.6g} {:.6g} {:.6g}\n", data_label(r.machine), r.compute_s,
                     r.exposed_comm_s, std::max(0.0, r.step_s - r.compute_s - r.exposed_comm_s));
  }
  s += "EOD\nplot $d using 2:xtic(1) title 'compute', '' using 3 title 'exposed communication', "
       "'' using 4 title 'idle / bubble'\n";
  return s;
}

}  // namespace linksim::report
