#pragma once
// nvbandwidth's testcases (NVIDIA/nvbandwidth v0.8, the single-node build): their names, their
// -l descriptions and their order (the index `-t N` selects), from testcase.h and
// createTestcases() in nvbandwidth.cpp. Each is one copy pattern (which copies run at once,
// which one is measured) on one kind of initiator: copy engines (cuMemcpyAsync) or SMs (a copy
// kernel). sim/coll/nvbandwidth.hpp simulates the patterns.

#include <optional>
#include <span>
#include <string_view>

namespace linksim::coll {

enum class CopyInitiator { ce, sm };

enum class NvbPattern {
  host_to_device,
  device_to_host,
  host_to_device_bidir,
  device_to_host_bidir,
  device_read,  // GPU(row) <- peer GPU(column), issued in the row GPU's context
  device_write,
  device_bidir_read,
  device_bidir_write,
  all_to_host,
  all_to_host_bidir,
  host_to_all,
  host_to_all_bidir,
  all_to_one_write,
  all_to_one_read,
  one_to_all_write,
  one_to_all_read,
  host_device_latency,  // pointer-chase latency: not simulated (waived)
  device_latency,       // pointer-chase latency: not simulated (waived)
  device_local_copy,
};

struct NvbTestcase {
  std::string_view key;  // "host_to_device_memcpy_ce"
  NvbPattern pattern = NvbPattern::host_to_device;
  CopyInitiator initiator = CopyInitiator::ce;
  std::string_view description;  // testDesc(), as -l prints it (tabs and newlines included)
};

// The 35 testcases, in the tool's order.
std::span<const NvbTestcase> nvbandwidth_testcases();

// A testcase by name, or by index as the tool reads one: findTestcase() takes an id that strtol()
// reads whole ("3", "+3", " 3", and "" as 0) as an index, anything else as a name.
struct NvbLookup {
  bool by_index = false;             // the id was read as an index
  std::optional<std::size_t> found;  // nullopt: no such name, or the index is out of bounds
};
NvbLookup find_nvbandwidth_testcase(std::string_view id);

// Whether linksim simulates the pattern (the latency testcases it does not).
bool nvbandwidth_simulates(NvbPattern pattern);

}  // namespace linksim::coll
