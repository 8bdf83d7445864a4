// The import façade (sim/app/machine_import.hpp): XML or printout by the text's first
// character, and the round-trip check in the report.
#include "sim/app/machine_import.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include "sim/core/error.hpp"
#include "sim/core/text_file.hpp"
#include "sim/topo/gpu_model.hpp"
#include "sim/topo/loader.hpp"
#include "tests/support/temp_files.hpp"
#include "tests/support/thrown_message.hpp"

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

// Issue 38, item 1: an XML file that starts with a UTF-8 byte order mark (EF BB BF, as some
// Windows editors save it) was taken for an nvidia-smi printout, "no nvidia-smi topo -m header
// found". The mark is skipped before the format is told, for a printout as for the XML.
TEST(MachineImportTest, AByteOrderMarkIsSkippedBeforeTheFormatIsTold) {
  const std::string bom = "\xEF\xBB\xBF";
  MachineImportOptions options;
  options.gpu_model = "V100-SXM2-32GB";
  options.source = "dgx1v-4gpu-topo.xml";
  const std::string xml =
      read_text_file(testing::source_dir() + "/tests/data/nccl/dgx1v-4gpu-topo.xml");
  const MachineImport from_xml = import_machine(bom + xml, options);
  EXPECT_EQ(from_xml.document, import_machine(xml, options).document);
  options.gpu_model = "A100-SXM4-80GB";
  options.source = "a100-8x-nvlink-pairs.txt";
  const std::string printout =
      read_text_file(testing::source_dir() + "/tests/data/smi/a100-8x-nvlink-pairs.txt");
  const MachineImport from_printout = import_machine(bom + printout, options);
  EXPECT_EQ(from_printout.document, import_machine(printout, options).document);
  EXPECT_NE(from_printout.report.find("reproduces the printout cell by cell"), std::string::npos)
      << from_printout.report;
}

// Issue 38, item 2: an unknown --gpu was blamed on the file ("topo.xml: unknown GPU model"),
// which holds no GPU model at all. It is the option's error, with the models it may name.
TEST(MachineImportTest, AnUnknownGpuModelIsTheOptionsError) {
  MachineImportOptions options;
  options.gpu_model = "Z100";
  options.source = "dgx1v-4gpu-topo.xml";
  const std::string xml =
      read_text_file(testing::source_dir() + "/tests/data/nccl/dgx1v-4gpu-topo.xml");
  const std::string message =
      testing::thrown_message<InputError>([&] { import_machine(xml, options); });
  // The list is the catalog's, sorted: "A10, A100-PCIE-80GB, ..., V100-SXM2-32GB" today.
  EXPECT_EQ(message, fmt::format("--gpu: unknown GPU model \"Z100\"; known models: {}",
                                 fmt::join(topo::gpu_model_names(), ", ")));
}

// --nvlink says how a PCI-only NCCL file's GPUs are joined; a printout states its NVLinks
// itself (NV#), so the option there would be ignored: it is refused instead.
TEST(MachineImportTest, NvlinkIsTheOptionsErrorForAPrintout) {
  MachineImportOptions options;
  options.gpu_model = "A100-SXM4-80GB";
  options.source = "a100-8x-nvlink-pairs.txt";
  options.nvlink = "nvswitch";
  const std::string printout =
      read_text_file(testing::source_dir() + "/tests/data/smi/a100-8x-nvlink-pairs.txt");
  EXPECT_EQ(testing::thrown_message<InputError>([&] { import_machine(printout, options); }),
            "--nvlink: is for NCCL XML whose GPUs are <pci> entries only; a printout gives its "
            "NVLinks");
}

}  // namespace
}  // namespace linksim::app
