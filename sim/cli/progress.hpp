#pragma once
// Progress of long work on stderr, e.g. "linksim: compare: 3/12 machines: dgx-a100", redrawn
// in place and erased when the work ends. It shows only when stderr is a terminal and the
// command was not given --quiet, so pipes, logs and tests never see it; it never touches
// stdout or any output file. Library code does not print: it takes a plain callback
// (done, total) that a Progress provides.
//
//   Progress progress("compare", "machines", machines.size());
//   for (...) { progress.update(i, name); ...; }
//   // or: options.progress = progress.callback();

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace CLI {
class App;
}  // namespace CLI

namespace linksim::cli {

// Adds -q,--quiet ("no progress on stderr") to a command that shows progress.
void add_quiet_flag(CLI::App* cmd);

class Progress {
 public:
  using Sink = std::function<void(std::string_view)>;

  // On stderr, shown when stderr is a terminal and --quiet was not given.
  Progress(std::string label, std::string unit, std::size_t total);
  // Written to `sink` when `shown`, redrawn at most every `min_interval` (the first and the last
  // update, and one with a new `detail`, always draw). For tests.
  Progress(std::string label, std::string unit, std::size_t total, Sink sink, bool shown,
           std::chrono::milliseconds min_interval);
  ~Progress() { finish(); }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  bool shown() const { return shown_; }
  // `done` units of `total` are finished; `detail` says what is under way.
  void update(std::size_t done, std::string_view detail = "");
  // Erases the line, if one is drawn, before the command prints its results; later updates
  // draw nothing.
  void finish();
  // For library code: calls update(done) (the callback's `total` replaces this one's).
  std::function<void(std::size_t done, std::size_t total)> callback();
  // The same with what is under way (update(done, detail)).
  std::function<void(std::size_t done, std::size_t total, const std::string& detail)>
  detailed_callback();

 private:
  std::string label_;
  std::string unit_;
  std::size_t total_;
  Sink sink_;
  bool shown_;
  std::chrono::milliseconds min_interval_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_draw_;
  std::string last_detail_;
};

}  // namespace linksim::cli
