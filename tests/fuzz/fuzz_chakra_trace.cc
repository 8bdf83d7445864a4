// Chakra execution traces (sim/work/chakra_trace.hpp) on the shipped DGX H100: the input is a
// trace set, one rank's bytes after another with the 6 bytes "|RANK|" between ranks (at most 8
// ranks, the machine's GPUs). read_chakra_trace either builds the task graph or refuses with
// InputError: never a crash, a hang or another exception. The seed corpus holds ASTRA-sim's
// 8-rank all-reduce traces (tests/data/chakra) joined that way.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/topo/loader.hpp"
#include "sim/work/chakra_trace.hpp"
#include "tests/fuzz/fuzz_guard.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace linksim;
  static const topo::Topology machine = topo::load_topology("dgx-h100");
  const std::string text = fuzz::as_text(data, size);
  const std::string separator = "|RANK|";
  std::vector<work::ChakraFile> files;
  std::size_t start = 0;
  while (files.size() < 8) {
    const std::size_t next = text.find(separator, start);
    const std::string name = "fuzz." + std::to_string(files.size()) + ".et";
    if (next == std::string::npos || files.size() == 7) {
      files.push_back({name, text.substr(start)});
      break;
    }
    files.push_back({name, text.substr(start, next - start)});
    start = next + separator.size();
  }
  fuzz::expect_clean([&] { work::read_chakra_trace(files, machine); });
  return 0;
}
