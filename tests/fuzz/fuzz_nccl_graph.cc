// NCCL graph dumps (NCCL_GRAPH_DUMP_FILE): read, written back (which must read again and write
// the same bytes), and compared with linksim's rings on a two-GPU machine.
#include <cstdlib>

#include "sim/app/nccl_graphs.hpp"
#include "sim/coll/nccl_graph.hpp"
#include "sim/topo/loader.hpp"
#include "tests/fuzz/fuzz_guard.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace linksim;
  static const topo::Topology machine = topo::load_topology("rtx4090-2x");
  fuzz::expect_clean([&] {
    const std::string text = fuzz::as_text(data, size);
    const coll::NcclGraphDump dump = coll::parse_nccl_graph_dump(text, "fuzz.xml");
    const std::string written = coll::to_nccl_graph_xml(dump);
    // What the writer writes the reader takes, and the second trip changes nothing.
    if (coll::to_nccl_graph_xml(coll::parse_nccl_graph_dump(written, "written.xml")) != written) {
      std::abort();
    }
    (void)app::compare_graph_dump(machine, text, "fuzz.xml");
  });
  return 0;
}
