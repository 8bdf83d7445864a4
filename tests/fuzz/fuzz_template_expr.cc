// Template expressions ("gpu{g/2}") with two bound variables.
#include "sim/topo/template_expr.hpp"
#include "tests/fuzz/fuzz_guard.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const linksim::topo::TemplateVars vars{{"g", 5}, {"s", -3}};
  linksim::topo::expand_template(linksim::fuzz::as_text(data, size), vars);
  return 0;
}
