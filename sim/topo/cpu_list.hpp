#pragma once
// A CPU list as Linux and nvidia-smi print it ("0-31,64-95"): what a machine file's `cores` and
// an nvidia-smi printout's CPU Affinity hold. Ranges run forwards, and CPU numbers stay below
// the 8192 a Linux kernel can number (x86-64's MAXSMP; arm64 allows 4096).

#include <optional>
#include <string>

namespace linksim::topo {

inline constexpr long kMaxLinuxCpus = 8192;

// What is wrong with `list` ("the range 99999-1 runs backwards; expected low-high such as
// 0-31"), or nullopt for a list of numbers and ranges joined by commas that is fine.
std::optional<std::string> cpu_list_problem(const std::string& list);

}  // namespace linksim::topo
