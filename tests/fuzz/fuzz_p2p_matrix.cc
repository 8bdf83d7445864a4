// import_p2p_matrix on a log meant for a 2-GPU machine.
#include "calibrate/import_p2p_matrix.hpp"
#include "tests/fuzz/fuzz_guard.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace linksim;
  calibrate::ImportOptions options;
  options.expected_gpu_count = 2;
  fuzz::expect_clean(
      [&] { calibrate::import_p2p_matrix(fuzz::as_text(data, size), "fuzz.txt", options); });
  return 0;
}
