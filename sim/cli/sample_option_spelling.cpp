#include "sim/cli/sample_option_spelling.hpp"

#include <algorithm>
#include <array>
#include <string_view>

namespace linksim::cli {
namespace {

// The samples' own option names, as `linksim bandwidth` and `linksim p2p` register them
// (cmd_copy_bench.cpp).
constexpr std::array<std::string_view, 12> kBandwidthOptions{
    "device", "memory", "mode",      "htod", "dtoh", "dtod",
    "start",  "end",    "increment", "wc",   "csv",  "cputiming"};
constexpr std::array<std::string_view, 3> kP2pOptions{"p2p_read", "sm_copy", "numElems"};

template <std::size_t N>
bool is_one_of(std::string_view name, const std::array<std::string_view, N>& names) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

void spell_sample_options_with_two_dashes(std::vector<char*>& args,
                                          std::vector<std::string>& storage) {
  if (args.size() < 2) return;
  const std::string_view command = args[1];
  if (command != "bandwidth" && command != "p2p") return;
  std::vector<std::size_t> changed;
  storage.reserve(storage.size() + args.size());
  for (std::size_t i = 2; i < args.size(); ++i) {
    const std::string_view arg = args[i];
    if (arg.size() < 3 || arg[0] != '-' || arg[1] == '-') continue;
    const std::string_view name = arg.substr(1, arg.find('=') - 1);
    const bool sample =
        command == "bandwidth" ? is_one_of(name, kBandwidthOptions) : is_one_of(name, kP2pOptions);
    if (!sample) continue;
    storage.push_back("-" + std::string(arg));
    changed.push_back(i);
  }
  // Pointers taken once storage holds every new text (reserve above: no reallocation).
  std::size_t k = storage.size() - changed.size();
  for (std::size_t i : changed)
    args[i] = storage[k++].data();
}

}  // namespace linksim::cli
