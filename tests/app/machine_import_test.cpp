// The import façade (sim/app/machine_import.hpp): XML or printout by the text's first
// character, and the round-trip check in the report.
#include "sim/app/machine_import.hpp"

#include <gtest/gtest.h>

#include "sim/core/text_file.hpp"
#include "sim/topo/loader.hpp"
#include "tests/support/temp_files.hpp"

namespace linksim::app {
namespace {

TEST(MachineImportTest, APrintoutImportsAndReproducesItself) {
  MachineImportOptions options;
  options.gpu_model = "A100-SXM4-80GB";
  options.cpu_vendor = "amd";
  options.source = "a100-8x-nvlink-pairs.txt";
  const MachineImport m = import_machine(
      read_text_file(testing::source_dir() + "/tests/data/smi/a100-8x-nvlink-pairs.txt"), options);
  EXPECT_EQ(m.report.rfind("linksim: assumed:\n", 0), 0u) << m.report;
  EXPECT_NE(m.report.find("linksim: the imported machine reproduces the printout cell by cell\n"),
            std::string::npos)
      << m.report;
  // The document loads: eight GPUs, as the printout's eight GPU rows.
  const topo::Topology t = topo::parse_topology(Json::parse(m.document), "imported.json");
  EXPECT_EQ(t.count(topo::NodeKind::gpu), 8u);
}

TEST(MachineImportTest, LeadingBlanksThenAnAngleBracketMeanNcclXml) {
  MachineImportOptions options;
  options.gpu_model = "V100-SXM2-32GB";
  options.source = "dgx1v-4gpu-topo.xml";
  const std::string xml =
      read_text_file(testing::source_dir() + "/tests/data/nccl/dgx1v-4gpu-topo.xml");
  const MachineImport m = import_machine("\n  \t" + xml, options);
  // The XML path has no printout to compare with: only what was assumed.
  EXPECT_EQ(m.report.find("printout"), std::string::npos) << m.report;
  const topo::Topology t = topo::parse_topology(Json::parse(m.document), "imported.json");
  EXPECT_EQ(t.count(topo::NodeKind::gpu), 4u);
}

}  // namespace
}  // namespace linksim::app
