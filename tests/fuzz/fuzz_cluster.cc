// Cluster files (sim/topo/cluster_loader.cpp): the host reference, the fabric, NVLink domains and
// the network plugin's environment. The input is written to a file of its own so that a host
// naming that file ("c.json", the recursion of issue 38) or another one is followed as a user's
// would be; inputs that are not clusters are left to the topology target.
#include "sim/core/json_view.hpp"
#include "sim/topo/loader.hpp"
#include "tests/fuzz/fuzz_guard.hpp"
#include "tests/fuzz/fuzz_input_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace linksim;
  const std::string text = fuzz::as_text(data, size);
  fuzz::expect_clean([&] {
    const Json doc = parse_json_text(text, "fuzz.json");
    if (!doc.is_object() || !doc.contains("cluster")) return;
    static const fuzz::InputFile file("cluster", "c.json");
    topo::load_topology(file.write(text));
  });
  return 0;
}
