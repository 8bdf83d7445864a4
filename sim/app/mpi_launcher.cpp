#include "sim/app/mpi_launcher.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <filesystem>
#include <string_view>

#include "sim/core/error.hpp"

namespace linksim::app {
namespace {

using namespace std::string_view_literals;

constexpr auto kLaunchers = std::to_array({"mpirun"sv, "mpiexec"sv, "orterun"sv});
// Options that take one value (OpenMPI 4/5 and MPICH spellings), none, or two (a parameter and
// its value).
constexpr auto kWithValue = std::to_array({"-H"sv,
                                           "-host"sv,
                                           "--host"sv,
                                           "-hostfile"sv,
                                           "--hostfile"sv,
                                           "-machinefile"sv,
                                           "--machinefile"sv,
                                           "-x"sv,
                                           "-map-by"sv,
                                           "--map-by"sv,
                                           "-bind-to"sv,
                                           "--bind-to"sv,
                                           "-rank-by"sv,
                                           "--rank-by"sv,
                                           "-npernode"sv,
                                           "--npernode"sv,
                                           "-N"sv,
                                           "-ppn"sv,
                                           "-wdir"sv,
                                           "--wdir"sv,
                                           "-wd"sv,
                                           "--prefix"sv,
                                           "-c"sv,
                                           "--cpus-per-proc"sv,
                                           "-cpus-per-proc"sv,
                                           "-f"sv});
constexpr auto kFlags = std::to_array(
    {"--oversubscribe"sv, "-oversubscribe"sv, "--allow-run-as-root"sv, "-q"sv, "--quiet"sv,
     "--tag-output"sv, "-tag-output"sv, "--timestamp-output"sv, "--report-bindings"sv,
     "-report-bindings"sv, "--display-map"sv, "-v"sv, "--verbose"sv});
constexpr auto kWithTwoValues =
    std::to_array({"-mca"sv, "--mca"sv, "-gmca"sv, "--gmca"sv, "-genv"sv, "-env"sv});

template <std::size_t N>
bool one_of(std::string_view word, const std::array<std::string_view, N>& names) {
  return std::find(names.begin(), names.end(), word) != names.end();
}

}  // namespace

LaunchedCommand strip_mpi_launcher(const std::vector<std::string>& words) {
  LaunchedCommand out;
  if (words.empty() ||
      !one_of(std::filesystem::path(words.front()).filename().string(), kLaunchers)) {
    out.words = words;
    return out;
  }
  const std::string launcher = std::filesystem::path(words.front()).filename().string();
  const auto fail = [&](const std::string& message) {
    throw InputError("", "argument BINARY",
                     fmt::format("{}: {}; or give linksim the processes with --np N and the "
                                 "nccl-tests command alone",
                                 launcher, message));
  };
  std::size_t i = 1;
  for (; i < words.size(); ++i) {
    const std::string& word = words[i];
    if (word.empty() || word.front() != '-') break;  // the binary
    const auto eq = word.find('=');
    const std::string_view name = std::string_view(word).substr(0, eq);
    const bool inline_value = eq != std::string::npos;
    if (name == "-np" || name == "-n" || name == "--np" || name == "--n") {
      std::string text;
      if (inline_value) {
        text = word.substr(eq + 1);
      } else if (i + 1 < words.size()) {
        text = words[++i];
      }
      int n = 0;
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
      if (text.empty() || ec != std::errc() || end != text.data() + text.size() || n < 1) {
        fail(fmt::format("expected a whole number of processes after {}, not \"{}\"", name, text));
      }
      out.processes = n;
    } else if (one_of(name, kWithValue)) {
      if (!inline_value) ++i;
    } else if (one_of(name, kWithTwoValues)) {
      i += 2;
    } else if (!one_of(name, kFlags)) {
      fail(fmt::format("option \"{}\" is not one linksim reads", word));
    }
  }
  if (i >= words.size()) fail("no nccl-tests command after the launcher's options");
  if (!out.processes) fail("no -np: say how many processes the run has");
  out.words.assign(words.begin() + static_cast<std::ptrdiff_t>(i), words.end());
  return out;
}

}  // namespace linksim::app
