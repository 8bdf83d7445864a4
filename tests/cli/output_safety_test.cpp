// What a command writes, and what it never does: run a shell, follow a planted link, leave half
// a file, write some outputs of a failed command, or print on stdout before failing.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <thread>

#include "tests/support/temp_files.hpp"

namespace linksim {
namespace {

using testing::read_file;
using testing::run_linksim;
using testing::shell_quote;
using testing::source_dir;
using testing::TempDir;
namespace fs = std::filesystem;

std::set<std::string> entries(const std::string& folder) {
  std::set<std::string> out;
  for (const auto& e : fs::directory_iterator(folder))
    out.insert(e.path().filename().string());
  return out;
}

TEST(OutputSafetyTest, PlotPathIsNeverSeenByAShell) {
  TempDir dir;
  // The reproducer from the hardening issue: with the path pasted into `gnuplot '...'` this
  // created PWNED in the working folder (which linksim shares with this test).
  fs::remove("PWNED");
  const std::string picture = dir.path() + "/x';touch PWNED;'.png";
  const auto r = run_linksim("compare seed-gradient-sync --plot " + shell_quote(picture));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists("PWNED"));
  // A PNG file starts with the bytes 0x89 'P' 'N' 'G'.
  EXPECT_EQ(read_file(picture).substr(0, 4), "\x89PNG");
  // Only the picture is left: no script, no temporary file.
  EXPECT_EQ(entries(dir.path()), (std::set<std::string>{fs::path(picture).filename().string()}));
}

// Runs the linksim beside this test binary in `folder` with TMPDIR set to `tmpdir` (which
// run_linksim cannot do: its own temporary files follow TMPDIR); stdout and stderr land in
// `folder`/out and `folder`/err.
int run_linksim_with_tmpdir(const std::string& folder, const std::string& tmpdir,
                            const std::string& args) {
  const std::string linksim =
      (fs::read_symlink("/proc/self/exe").parent_path() / "linksim").string();
  const std::string command = "cd " + shell_quote(folder) + " && TMPDIR=" + shell_quote(tmpdir) +
                              " " + shell_quote(linksim) + " " + args + " >out 2>err";
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Issue 38, item 6: the private folder's path, under $TMPDIR, went into gnuplot's script as
// `set output '<path>'` unquoted inside the quotes, so this TMPDIR ran `touch PWNED3` in the
// working folder (and gnuplot then failed). It is quoted as gnuplot reads quotes ('' for ').
TEST(OutputSafetyTest, TmpdirReachesGnuplotQuoted) {
  TempDir dir;
  const std::string tmpdir = dir.path() + "/x'; system('touch PWNED3'); '";
  fs::create_directory(tmpdir);
  const std::string picture = dir.path() + "/p.png";
  const std::string sweep = "nccl-tests --topology dgx-a100 all_reduce_perf -b 1M -e 4M -f 2 -g 8";
  EXPECT_EQ(run_linksim_with_tmpdir(dir.path(), tmpdir, sweep + " --plot " + shell_quote(picture)),
            0)
      << read_file(dir.path() + "/err");
  EXPECT_FALSE(fs::exists(dir.path() + "/PWNED3"));
  EXPECT_EQ(read_file(picture).substr(0, 4), "\x89PNG");
  EXPECT_TRUE(fs::is_empty(tmpdir));  // the private folder is gone
  // A line break ends a gnuplot command, inside quotes too: no gnuplot string can hold it, so
  // such a TMPDIR is refused by name before anything runs.
  const std::string broken = dir.path() + "/a\nb";
  fs::create_directory(broken);
  fs::remove(picture);
  EXPECT_EQ(run_linksim_with_tmpdir(dir.path(), broken, sweep + " --plot " + shell_quote(picture)),
            2);
  EXPECT_EQ(read_file(dir.path() + "/err"),
            "linksim: error: TMPDIR: \"" + dir.path() +
                "/a\\nb\" holds a control character, which gnuplot cannot be given in a file "
                "name; set TMPDIR to a folder without one\n");
  EXPECT_EQ(read_file(dir.path() + "/out"), "");
  EXPECT_FALSE(fs::exists(picture));
  EXPECT_TRUE(fs::is_empty(broken));
}

TEST(OutputSafetyTest, TitlesFromInputFilesAreNotExpandedByGnuplot) {
  TempDir dir;
  // gnuplot runs `backquoted` text inside double-quoted strings; the scenario's name (its file
  // name) becomes the plot title.
  fs::remove("PWNED2");
  const std::string scenario = dir.write(
      "a`touch PWNED2`.json", read_file(source_dir() + "/scenarios/seed-gradient-sync.json"));
  const auto r = run_linksim("compare " + shell_quote(scenario) + " --plot " +
                             shell_quote(dir.path() + "/p.svg"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists("PWNED2"));
}

TEST(OutputSafetyTest, PictureTypeFollowsTheExtension) {
  TempDir dir;
  const auto svg =
      run_linksim("compare seed-gradient-sync --plot " + shell_quote(dir.path() + "/p.svg"));
  ASSERT_EQ(svg.exit_code, 0) << svg.err;
  EXPECT_NE(read_file(dir.path() + "/p.svg").find("<svg"), std::string::npos);
  const auto pdf =
      run_linksim("nccl-tests --topology dgx-a100 all_reduce_perf -b 1M -e 4M -f 2 -g 8 --plot " +
                  shell_quote(dir.path() + "/p.pdf"));
  ASSERT_EQ(pdf.exit_code, 0) << pdf.err;
  EXPECT_EQ(read_file(dir.path() + "/p.pdf").substr(0, 5), "%PDF-");
  // Anything else is refused before the work, with nothing written and nothing on stdout.
  const std::string jpg = dir.path() + "/p.jpg";
  const auto bad = run_linksim("compare seed-gradient-sync --plot " + shell_quote(jpg));
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.out, "");
  EXPECT_EQ(bad.err, "linksim: error: " + jpg +
                         ": cannot tell what picture to draw from the extension; name a .png, "
                         ".svg or .pdf file\n");
  EXPECT_FALSE(fs::exists(jpg));
}

TEST(OutputSafetyTest, PlantedLinksAreNeverWrittenThrough) {
  TempDir dir;
  const std::string victim = dir.write("victim.txt", "keep me");
  const std::string out = dir.path() + "/out.txt";
  // The old fixed temporary name, planted as a link to the victim.
  fs::create_symlink(victim, out + ".tmp-linksim");
  const auto r = run_linksim("run seed-gradient-sync -o " + shell_quote(out));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_file(victim), "keep me");
  EXPECT_EQ(read_file(out), run_linksim("run seed-gradient-sync").out);
  // A link at the target itself: refused without --force; with it, the link is replaced by a
  // file and the victim is untouched.
  const std::string linked = dir.path() + "/linked.txt";
  fs::create_symlink(victim, linked);
  const auto refused = run_linksim("run seed-gradient-sync -o " + shell_quote(linked));
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_EQ(refused.err,
            "linksim: error: " + linked + ": file exists; pass --force to overwrite it\n");
  const auto forced = run_linksim("run seed-gradient-sync --force -o " + shell_quote(linked));
  ASSERT_EQ(forced.exit_code, 0) << forced.err;
  EXPECT_FALSE(fs::is_symlink(linked));
  EXPECT_EQ(read_file(victim), "keep me");
}

TEST(OutputSafetyTest, StreamsAndDevicesAreWrittenInPlaceNeverReplaced) {
  // /dev/null takes the report (no --force needed: nothing is overwritten) and stays a device.
  const auto null = run_linksim("run seed-gradient-sync -o /dev/null");
  EXPECT_EQ(null.exit_code, 0) << null.err;
  EXPECT_EQ(null.err, "");
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  // /dev/full refuses the bytes: a clear error, even with --force, and the device stays.
  const auto full = run_linksim("run seed-gradient-sync --force -o /dev/full");
  EXPECT_EQ(full.exit_code, 2);
  EXPECT_EQ(full.out, "");
  EXPECT_EQ(full.err, "linksim: error: /dev/full: write failed: No space left on device\n");
  EXPECT_TRUE(fs::is_character_file("/dev/full"));
  // Standard output that cannot take the report is an error too, not exit 0.
  const auto shell_full = testing::run_linksim_with_stdout("run seed-gradient-sync", "/dev/full");
  EXPECT_EQ(shell_full.exit_code, 2);
  EXPECT_EQ(shell_full.err,
            "linksim: error: standard output: write failed (a full disk or device)\n");
  // A stream that fails leaves no other output in place: the trace is never renamed in.
  TempDir dir;
  const std::string trace = dir.path() + "/trace.json";
  const auto both =
      run_linksim("run default -t dgx-a100 --trace " + shell_quote(trace) + " -o /dev/full");
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_FALSE(fs::exists(trace));
  // A FIFO gets the report through its reader, and is still a FIFO afterwards.
  const std::string fifo = dir.path() + "/report.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] {
    std::ifstream in(fifo);
    got.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  });
  const auto piped = run_linksim("run seed-gradient-sync --force -o " + shell_quote(fifo));
  reader.join();
  EXPECT_EQ(piped.exit_code, 0) << piped.err;
  EXPECT_EQ(got, run_linksim("run seed-gradient-sync").out);
  EXPECT_TRUE(fs::is_fifo(fifo));
}

TEST(OutputSafetyTest, AFailedCommandWritesNoneOfItsOutputs) {
  TempDir dir;
  const std::string existing = dir.write("report.txt", "keep me");
  const std::string trace = dir.path() + "/trace.json";
  // The report destination exists and --force is not given: refused before the simulation, so
  // the trace (12.6 MB for the default scenario) is never written either.
  const auto r =
      run_linksim("run default --trace " + shell_quote(trace) + " -o " + shell_quote(existing));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_FALSE(fs::exists(trace));
  EXPECT_EQ(read_file(existing), "keep me");
  const std::string graph = source_dir() + "/scenarios/graphs/seed-gradient-pcie.json";
  const auto g = run_linksim("run-graph " + shell_quote(graph) + " -t rtx4090-2x --trace " +
                             shell_quote(trace) + " -o " + shell_quote(existing));
  EXPECT_EQ(g.exit_code, 2);
  EXPECT_FALSE(fs::exists(trace));
  // One file named as two outputs is refused too.
  const auto twice = run_linksim("run-graph " + shell_quote(graph) + " -t rtx4090-2x --trace " +
                                 shell_quote(trace) + " -o " + shell_quote(trace));
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_EQ(twice.err, "linksim: error: " + trace +
                           ": is named as two outputs of one command; name two files\n");
  EXPECT_EQ(entries(dir.path()), (std::set<std::string>{"report.txt"}));
}

TEST(OutputSafetyTest, AFolderIsNotAnOutputFile) {
  TempDir dir;
  const auto r = run_linksim("run seed-gradient-sync --force -o " + shell_quote(dir.path()));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "linksim: error: " + dir.path() + ": is a folder; name a file to write\n");
  const std::string missing = dir.path() + "/no/such/folder/out.txt";
  const auto m = run_linksim("run seed-gradient-sync -o " + shell_quote(missing));
  EXPECT_EQ(m.exit_code, 2);
  EXPECT_EQ(m.err, "linksim: error: " + missing + ": folder " + dir.path() +
                       "/no/such/folder does not exist\n");
}

TEST(OutputSafetyTest, MachineListsAreBoundedAndDistinct) {
  // The hardening issue's reproducer ran 1,000 copies of one machine for 60 s and 4.7 GB; a
  // comparison now keeps figures only, and runs at most 1024 machines.
  std::string many;
  for (int i = 0; i < 1025; ++i)
    many += " -t dgx-a100";
  const auto r = run_linksim("compare seed-gradient-sync" + many);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "linksim: error: --topology: 1025 machines named; at most 1024 can be compared in one "
            "run\n");
  const auto twice = run_linksim("compare seed-gradient-sync -t dgx-a100 -t dgx-h100 -t dgx-a100");
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_EQ(twice.err, "linksim: error: --topology: machine \"dgx-a100\" is named twice\n");
}

TEST(OutputSafetyTest, DashIsStandardOutput) {
  TempDir dir;
  const auto r = run_linksim("run seed-gradient-sync -o -");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, run_linksim("run seed-gradient-sync").out);
  EXPECT_FALSE(fs::exists("-"));
}

TEST(OutputSafetyTest, UsageErrorsExitTwoOnOneLine) {
  struct Case {
    std::string args;
    std::string err;
  };
  // CLI11 returned its own codes (109 unknown flag, 104 bad integer, 105 bad choice, 106 no
  // command); usage errors are input errors, exit code 2, one line on stderr.
  const Case cases[] = {
      {"run seed-gradient-sync --no-such-flag",
       "linksim: error: The following argument was not expected: --no-such-flag (see linksim "
       "--help)\n"},
      {"nccl-tests --topology dgx-a100 all_reduce_perf -n many",
       "linksim: error: nccl-tests -n: expected an integer of at least 1, got "
       "\"many\"\n"},
      {"run seed-gradient-sync --format yaml",
       "linksim: error: --format: yaml not in {table,json,csv} (see linksim --help)\n"},
      {"", "linksim: error: A subcommand is required (see linksim --help)\n"},
      {"bogus",
       "linksim: error: unknown command \"bogus\"; expected one of topo, run-graph, nccl-tests, "
       "p2p, bandwidth, nvbandwidth, accuracy, run, compare, plan, sweep, calibrate, fit, "
       "tune, completion\n"},
  };
  for (const auto& c : cases) {
    const auto r = run_linksim(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args;
    EXPECT_EQ(r.out, "") << c.args;
    EXPECT_EQ(r.err, c.err) << c.args;
  }
  const auto help = run_linksim("--help");
  EXPECT_EQ(help.exit_code, 0);
}

}  // namespace
}  // namespace linksim
