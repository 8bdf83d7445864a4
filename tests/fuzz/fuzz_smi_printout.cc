// nvidia-smi topo -m printouts, read and imported as an A100 machine.
#include "sim/topo/smi_matrix_import.hpp"
#include "sim/topo/smi_matrix_parse.hpp"
#include "tests/fuzz/fuzz_guard.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace linksim;
  fuzz::expect_clean([&] {
    const auto matrix = topo::parse_smi_printout(fuzz::as_text(data, size), "fuzz.txt");
    topo::SmiImportOptions options;
    options.gpu_model = "A100-SXM4-80GB";
    options.source = "fuzz.txt";
    topo::import_smi(matrix, options);
  });
  return 0;
}
