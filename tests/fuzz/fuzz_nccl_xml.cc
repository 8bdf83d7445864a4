// NCCL topology XML (NCCL_TOPO_DUMP_FILE / NCCL_TOPO_FILE), imported as an H100 machine and the
// resulting topology file loaded, as `linksim topo import` does; PCI-only files with --nvlink
// nvswitch.
#include "sim/topo/loader.hpp"
#include "sim/topo/nccl_xml.hpp"
#include "tests/fuzz/fuzz_guard.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace linksim;
  fuzz::expect_clean([&] {
    topo::NcclXmlImportOptions options;
    options.gpu_model = "H100-SXM5-80GB";
    options.source = "fuzz.xml";
    // PCI-only files (no <gpu>) import only when told how the H100s' NVLinks are joined: odd
    // sizes say so, so both those and NCCL's own dumps (refused with --nvlink) get through.
    if (size % 2 == 1) options.nvlink = "nvswitch";
    const auto imported = topo::import_nccl_xml(fuzz::as_text(data, size), options);
    (void)topo::parse_topology(imported.document, "imported.json");
  });
  return 0;
}
