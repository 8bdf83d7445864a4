#include "sim/cli/progress.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "tests/support/temp_files.hpp"

namespace linksim::cli {
namespace {

using namespace std::chrono_literals;

// Each draw goes back to the line's start and clears it ("\r\x1b[K"), then writes the line.
const std::string kErase = "\r\x1b[K";

TEST(Progress, DrawsInPlaceAndErasesWhenDone) {
  std::string out;
  {
    Progress p(
        "compare", "machines", 3, [&](std::string_view s) { out += s; }, true, 0ms);
    p.update(0, "dgx-a100");
    p.update(1, "rtx4090-8x");
    p.update(3);
  }
  EXPECT_EQ(out, kErase + "linksim: compare: 0/3 machines: dgx-a100" + kErase +
                     "linksim: compare: 1/3 machines: rtx4090-8x" + kErase +
                     "linksim: compare: 3/3 machines" + kErase);
}

TEST(Progress, HiddenDrawsNothing) {
  std::string out;
  {
    Progress p(
        "fit", "steps", 3, [&](std::string_view s) { out += s; }, false, 0ms);
    p.update(1);
    p.update(3);
  }
  EXPECT_EQ(out, "");
}

// Within the interval only the first and the last update draw.
TEST(Progress, ThrottlesButDrawsTheLastUpdate) {
  std::string out;
  Progress p(
      "fit", "steps", 3, [&](std::string_view s) { out += s; }, true, 1h);
  p.update(0);
  p.update(1);
  p.update(2);
  p.update(3);
  p.finish();
  EXPECT_EQ(out, kErase + "linksim: fit: 0/3 steps" + kErase + "linksim: fit: 3/3 steps" + kErase);
}

// A new stage is drawn however soon it comes: it may be the one that lasts.
TEST(Progress, DrawsANewDetailWithinTheInterval) {
  std::string out;
  Progress p(
      "fit", "steps", 3, [&](std::string_view s) { out += s; }, true, 1h);
  p.update(0, "reading the logs");
  p.update(1, "reading the logs");
  p.update(2, "fitting the collectives");
  EXPECT_EQ(out, kErase + "linksim: fit: 0/3 steps: reading the logs" + kErase +
                     "linksim: fit: 2/3 steps: fitting the collectives");
}

TEST(Progress, FinishErasesOnceAndSilencesLaterUpdates) {
  std::string out;
  Progress p(
      "fit", "steps", 2, [&](std::string_view s) { out += s; }, true, 0ms);
  p.update(1);
  p.finish();
  p.update(2);
  p.finish();
  EXPECT_EQ(out, kErase + "linksim: fit: 1/2 steps" + kErase);
}

// Library code reports (done, total) and may know the total better than the command.
TEST(Progress, CallbackTakesTheLibrarysTotal) {
  std::string out;
  Progress p(
      "all_reduce_perf", "sizes", 0, [&](std::string_view s) { out += s; }, true, 0ms);
  const auto report = p.callback();
  report(1, 28);
  EXPECT_EQ(out, kErase + "linksim: all_reduce_perf: 1/28 sizes");
}

// Through the command: stderr is a pipe in tests, so nothing but results is printed. (Each
// bad-input case also checks that stderr holds its one error line and nothing else.)
TEST(Progress, NotShownWhenStderrIsNotATerminal) {
  const auto r = testing::run_linksim("compare seed-gradient-sync --format csv");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const auto quiet = testing::run_linksim("compare seed-gradient-sync --format csv --quiet");
  EXPECT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_EQ(quiet.out, r.out);
}

// On a terminal (util-linux `script` gives the command one) the line shows, and --quiet hides it.
TEST(Progress, ShownOnATerminalUnlessQuiet) {
  const char* cli = std::getenv("LINKSIM_CLI");
  if (cli == nullptr || !std::filesystem::exists("/usr/bin/script")) {
    GTEST_SKIP() << "needs LINKSIM_CLI and /usr/bin/script";
  }
  testing::TempDir dir;
  const auto on_terminal = [&](const std::string& flags) {
    const std::string seen = dir.path() + "/seen" + std::to_string(flags.size());
    const std::string inner = testing::shell_quote(cli) +
                              " compare seed-gradient-sync --format csv" + flags + " >/dev/null";
    const std::string command = "/usr/bin/script -qec " + testing::shell_quote(inner) +
                                " /dev/null >" + testing::shell_quote(seen) + " 2>&1";
    EXPECT_EQ(std::system(command.c_str()), 0) << command;
    return testing::read_file(seen);
  };
  EXPECT_NE(on_terminal("").find(kErase + "linksim: simulating: 0/"), std::string::npos);
  EXPECT_EQ(on_terminal(" --quiet").find("linksim: simulating"), std::string::npos);
}

}  // namespace
}  // namespace linksim::cli
