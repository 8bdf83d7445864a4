// linksim: simulate multi-GPU communication cost on a described machine.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <exception>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/cli/commands.hpp"
#include "sim/cli/sample_option_spelling.hpp"
#include "sim/core/error.hpp"
#include "sim/core/memory_bound.hpp"
#include "sim/core/units.hpp"

namespace {

// Whether `name` is none of `parent`'s subcommands, saying so on stderr as `spelled`.
bool unknown_subcommand(CLI::App& parent, const std::string& name, const std::string& spelled) {
  std::vector<std::string> names;
  for (const auto* sub : parent.get_subcommands([](CLI::App*) { return true; }))
    names.push_back(sub->get_name());
  if (names.empty() || std::find(names.begin(), names.end(), name) != names.end()) return false;
  fmt::print(stderr, "linksim: error: unknown command \"{}\"; expected one of {}\n", spelled,
             fmt::join(names, ", "));
  return true;
}

// Takes every "--max-memory SIZE" or "--max-memory=SIZE" out of `args` and returns the last
// size given, in bytes ("0" for no bound). Throws InputError for a missing or bad size.
std::optional<std::size_t> take_max_memory(std::vector<char*>& args) {
  std::optional<std::size_t> bound;
  constexpr std::string_view kFlag = "--max-memory";
  for (std::size_t i = 1; i < args.size();) {
    const std::string_view arg = args[i];
    std::string text;
    std::size_t taken = 1;
    if (arg == kFlag) {
      if (i + 1 >= args.size()) {
        throw linksim::InputError("", "--max-memory", "expected a size after it");
      }
      text = args[i + 1];
      taken = 2;
    } else if (arg.substr(0, kFlag.size() + 1) == "--max-memory=") {
      text = std::string(arg.substr(kFlag.size() + 1));
    } else {
      ++i;
      continue;
    }
    const auto bytes = text == "0" ? std::optional<double>(0) : linksim::units::parse_bytes(text);
    if (!bytes || *bytes < 0) {
      throw linksim::InputError(
          "", "--max-memory",
          fmt::format("expected a size such as 16GiB, 512MB or 0, not \"{}\"", text));
    }
    bound = static_cast<std::size_t>(*bytes);
    args.erase(args.begin() + static_cast<std::ptrdiff_t>(i),
               args.begin() + static_cast<std::ptrdiff_t>(i + taken));
  }
  return bound;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "linksim: predicts how long multi-GPU communication takes on a given machine, and how a "
      "step splits into compute, communication and exposed communication."};
  app.set_version_flag("--version", std::string("linksim ") + LINKSIM_VERSION);
  app.require_subcommand(1);
  // --max-memory may come anywhere on the line, before or after a command's own arguments (which
  // nccl-tests passes through as its binary's): it is taken out before parsing, and its bound
  // holds before any command runs. Registered on the app only for --help.
  linksim::set_memory_bound(linksim::default_memory_bound());
  std::vector<char*> args(argv, argv + argc);
  try {
    if (const auto bound = take_max_memory(args)) linksim::set_memory_bound(*bound);
  } catch (const linksim::InputError& e) {
    fmt::print(stderr, "linksim: error: {} (see linksim --help)\n", e.what());
    return linksim::kInputErrorExitCode;
  }
  std::vector<std::string> respelled;
  linksim::cli::spell_sample_options_with_two_dashes(args, respelled);
  argc = static_cast<int>(args.size());
  argv = args.data();
  std::string max_memory_help;
  app.add_option("--max-memory", max_memory_help,
                 fmt::format("Stop a run with a clear error before it holds more memory than this "
                             "(as 16GiB or 512MB; 0 for no bound; default: 80% of this machine's "
                             "memory, {}); anywhere on the line",
                             linksim::units::format_bytes_binary(
                                 static_cast<double>(linksim::default_memory_bound()))));
  // Registration is inside the try: listing the shipped machines and scenarios for --help reads
  // LINKSIM_DATA, which may name no folder.
  try {
    linksim::cli::register_topo(app);
    linksim::cli::register_run_graph(app);
    linksim::cli::register_nccl_tests(app);
    linksim::cli::register_copy_bench(app);
    linksim::cli::register_nvbandwidth(app);
    linksim::cli::register_accuracy(app);
    linksim::cli::register_run(app);
    linksim::cli::register_compare(app);
    linksim::cli::register_plan(app);
    linksim::cli::register_sweep(app);
    linksim::cli::register_calibrate(app);
    linksim::cli::register_fit(app);
    linksim::cli::register_tune(app);
    linksim::cli::register_completion(app);
    // An unknown command, or an unknown subcommand of one that needs one (`linksim topo bogus`),
    // is named as such (CLI11 would say "A subcommand is required").
    if (argc > 1 && argv[1][0] != '-') {
      if (unknown_subcommand(app, argv[1], argv[1])) return linksim::kInputErrorExitCode;
      CLI::App* command = app.get_subcommand(argv[1]);
      if (argc > 2 && argv[2][0] != '-' && command->get_require_subcommand_min() > 0 &&
          unknown_subcommand(*command, argv[2], fmt::format("{} {}", argv[1], argv[2]))) {
        return linksim::kInputErrorExitCode;
      }
    }
    app.parse(argc, argv);
  } catch (const linksim::cli::CommandFailed& failed) {
    std::cout.flush();
    return failed.exit_code;
  } catch (const linksim::MemoryBoundExceeded& e) {
    fmt::print(stderr, "linksim: error: {}\n", e.what());
    return linksim::kInputErrorExitCode;
  } catch (const CLI::ParseError& e) {
    // --help and --version print and succeed; every usage error is one line and exit code 2,
    // like any other input error.
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(e);
    fmt::print(stderr, "linksim: error: {} (see linksim --help)\n", e.what());
    return linksim::kInputErrorExitCode;
  } catch (const linksim::InputError& e) {
    fmt::print(stderr, "linksim: error: {}\n", e.what());
    return linksim::kInputErrorExitCode;
  } catch (const std::exception& e) {
    fmt::print(stderr, "linksim: internal error: {}\n", e.what());
    return 1;
  }
  // What went to standard output must have arrived: `linksim run default > /dev/full` fails.
  std::cout.flush();
  if (!std::cout || std::fflush(stdout) != 0 || std::ferror(stdout)) {
    fmt::print(stderr, "linksim: error: standard output: write failed (a full disk or device)\n");
    return linksim::kInputErrorExitCode;
  }
  return 0;
}
