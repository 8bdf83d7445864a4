#include "sim/cli/progress.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>

namespace linksim::cli {
namespace {

// Set by --quiet on any command; a process runs one command.
bool& quiet_requested() {
  static bool quiet = false;
  return quiet;
}

// Back to the start of the line, and clear it to its end.
constexpr std::string_view kEraseLine = "\r\x1b[K";

}  // namespace

void add_quiet_flag(CLI::App* cmd) {
  cmd->add_flag("-q,--quiet", quiet_requested(),
                "No progress on stderr (shown only on a terminal)");
}

Progress::Progress(std::string label, std::string unit, std::size_t total)
    : Progress(
          std::move(label), std::move(unit), total,
          [](std::string_view text) {
            std::fwrite(text.data(), 1, text.size(), stderr);
            std::fflush(stderr);
          },
          !quiet_requested() && ::isatty(STDERR_FILENO) == 1, std::chrono::milliseconds(100)) {}

Progress::Progress(std::string label, std::string unit, std::size_t total, Sink sink, bool shown,
                   std::chrono::milliseconds min_interval)
    : label_(std::move(label)),
      unit_(std::move(unit)),
      total_(total),
      sink_(std::move(sink)),
      shown_(shown),
      min_interval_(min_interval) {}

void Progress::finish() {
  if (drawn_) sink_(kEraseLine);
  drawn_ = false;
  shown_ = false;
}

void Progress::update(std::size_t done, std::string_view detail) {
  if (!shown_) return;
  const auto now = std::chrono::steady_clock::now();
  const bool last = done >= total_;
  // A new stage always shows; repeated counts of one stage are thinned out.
  if (drawn_ && !last && detail == last_detail_ && now - last_draw_ < min_interval_) return;
  std::string line =
      fmt::format("{}linksim: {}: {}/{} {}", kEraseLine, label_, done, total_, unit_);
  if (!detail.empty()) line += fmt::format(": {}", detail);
  sink_(line);
  drawn_ = true;
  last_draw_ = now;
  last_detail_ = detail;
}

std::function<void(std::size_t, std::size_t)> Progress::callback() {
  return [this](std::size_t done, std::size_t total) {
    total_ = total;
    update(done);
  };
}

std::function<void(std::size_t, std::size_t, const std::string&)> Progress::detailed_callback() {
  return [this](std::size_t done, std::size_t total, const std::string& detail) {
    total_ = total;
    update(done, detail);
  };
}

}  // namespace linksim::cli
