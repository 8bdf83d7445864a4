// `linksim topo import` on the PCI-only NCCL topology files aws-ofi-nccl ships (issue 37, item
// 1; tests/data/real/nccl-xml): p4d imports with --nvlink and the machine shows its PCIe tree;
// without --nvlink, or for a file without classes (g5), it exits 2 naming what is missing and
// writes nothing.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/support/temp_files.hpp"

namespace linksim {
namespace {

using testing::run_linksim;
using testing::shell_quote;
using testing::source_dir;
using testing::TempDir;

std::string real_file(const std::string& name) {
  return source_dir() + "/tests/data/real/nccl-xml/" + name;
}

// `topo import` of AWS's p4d file (A100 40 GB GPUs on NVSwitches) into `out`.
testing::CommandResult import_p4d(const std::string& out) {
  return run_linksim("topo import " + shell_quote(real_file("aws-ofi-nccl-p4d-24xl-topo.xml")) +
                     " --gpu A100-SXM4-40GB --nvlink nvswitch -o " + shell_quote(out));
}

TEST(NcclXmlImportCliTest, AwsP4dImportsWithNvlinkAndShowsItsPcieTree) {
  TempDir dir;
  const std::string out = dir.path() + "/p4d.json";
  const auto r = import_p4d(out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.rfind("linksim: assumed:\n", 0), 0u) << r.err;
  const auto shown = run_linksim("topo show " + shell_quote(out));
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  // GPU0 and GPU1 share NIC0's switch (PIX), reach NIC1 through the CPU (PHB), and the other
  // socket's NICs across it (SYS); every GPU pair over the NVSwitch's 12 links.
  EXPECT_NE(
      shown.out.find("\nGPU0\t X \tNV12\tNV12\tNV12\tNV12\tNV12\tNV12\tNV12\tPIX\tPHB\tSYS\tSYS"
                     "\t0-23,48-71\t0\t"),
      std::string::npos)
      << shown.out;
}

// Issue 37: `topo import -o machine.json` then `topo export` wrote bus ids 0000:01:00.0 onwards
// and every NIC as InfiniBand (0x020700). The machine file now holds them, and the export gives
// p4d's own: AWS's switch ids, the EFA NICs' Ethernet class and PCI ids, the GPUs' bus ids.
TEST(NcclXmlImportCliTest, ImportedMachineFileExportsTheFilesBusIdsAndClasses) {
  TempDir dir;
  const std::string out = dir.path() + "/p4d.json";
  const auto r = import_p4d(out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto exported = run_linksim("topo export --format nccl-xml " + shell_quote(out));
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  for (const char* element :
       {"<pci busid=\"ffff:ff:04.0\" class=\"0x060400\" vendor=\"0xffff\" device=\"0xffff\"",
        "<pci busid=\"0000:a0:1b.0\" class=\"0x020000\" vendor=\"0x1d0f\" device=\"0xefa0\"",
        "<pci busid=\"0000:a0:1d.0\" class=\"0x030200\" vendor=\"0x10de\" device=\"0x20b0\""}) {
    EXPECT_NE(exported.out.find(element), std::string::npos) << element << "\n" << exported.out;
  }
}

TEST(NcclXmlImportCliTest, AwsFilesMissingFactsExitNamingThemAndWriteNothing) {
  TempDir dir;
  const std::string out = dir.path() + "/m.json";
  const std::string p4d = real_file("aws-ofi-nccl-p4d-24xl-topo.xml");
  const auto r = run_linksim("topo import " + shell_quote(p4d) + " --gpu A100-SXM4-40GB -o " +
                             shell_quote(out));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "linksim: error: " + p4d +
                       ": the file gives its 8 GPUs as <pci> entries only (no <gpu> elements), "
                       "so it does not say how the 12 NVLinks of each A100-SXM4-40GB are joined "
                       "(NCCL reads them from the driver); say it with --nvlink nvswitch (every "
                       "GPU's NVLinks to an NVSwitch fabric) or --nvlink none\n");
  const auto g5 =
      run_linksim("topo import " + shell_quote(real_file("aws-ofi-nccl-g5.48xl-topo.xml")) +
                  " --gpu A10G -o " + shell_quote(out));
  EXPECT_EQ(g5.exit_code, 2);
  EXPECT_NE(g5.err.find(": at line 14: <pci busid=\"0000:00:16.0\"> has no class"),
            std::string::npos)
      << g5.err;
  EXPECT_FALSE(std::filesystem::exists(out));
}

// Issue 37: the GPUs' model from the PCI id every GPU states, when --gpu is not given. AWS's p4d
// file states 10de:20b0 (pci.ids: A100 SXM4 40GB) and p4de's 10de:20b2 (A100 SXM4 80GB): each
// imports as its model, the p4d file byte for byte as with --gpu A100-SXM4-40GB, and says where
// the model came from.
TEST(NcclXmlImportCliTest, TheGpusPciIdGivesTheirModelWithoutGpu) {
  TempDir dir;
  const std::string given = dir.path() + "/given.json";
  const std::string inferred = dir.path() + "/inferred.json";
  ASSERT_EQ(import_p4d(given).exit_code, 0);
  const auto r =
      run_linksim("topo import " + shell_quote(real_file("aws-ofi-nccl-p4d-24xl-topo.xml")) +
                  " --nvlink nvswitch -o " + shell_quote(inferred));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("  - the GPUs' model A100-SXM4-40GB (no --gpu) from the PCI id 10de:20b0 "
                       "every GPU states (pci.ids: \"GA100 [A100 SXM4 40GB]\")\n"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(testing::read_file(inferred), testing::read_file(given));
  const std::string p4de = dir.path() + "/p4de.json";
  const auto r2 =
      run_linksim("topo import " + shell_quote(real_file("aws-ofi-nccl-p4de-24xl-topo.xml")) +
                  " --nvlink nvswitch -o " + shell_quote(p4de));
  ASSERT_EQ(r2.exit_code, 0) << r2.err;
  EXPECT_NE(testing::read_file(p4de).find("\"model\": \"A100-SXM4-80GB\""), std::string::npos);
}

TEST(NcclXmlImportCliTest, AGpuThatContradictsItsPciIdIsNotedAndAnUnknownIdNeedsGpu) {
  TempDir dir;
  const std::string p4d = real_file("aws-ofi-nccl-p4d-24xl-topo.xml");
  // --gpu wins, as it does over a <gpu>'s sm, and the first GPU that says otherwise is named.
  const auto r = run_linksim("topo import " + shell_quote(p4d) +
                             " --gpu A100-SXM4-80GB --nvlink nvswitch -o " +
                             shell_quote(dir.path() + "/m.json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("  - <pci busid=\"0000:10:1c.0\"> (line 18) states PCI id 10de:20b0, an "
                       "A100-SXM4-40GB (pci.ids: \"GA100 [A100 SXM4 40GB]\"), but --gpu is "
                       "A100-SXM4-80GB: the GPUs are the --gpu model\n"),
            std::string::npos)
      << r.err;
  // An id linksim does not know: --gpu is required, and the message names the GPU and its id.
  std::string text = testing::read_file(p4d);
  const std::string id = "device=\"0x20b0\"";
  for (std::size_t at = text.find(id); at != std::string::npos; at = text.find(id, at))
    text.replace(at, id.size(), "device=\"0x20b7\"");
  const std::string unknown = dir.write("unknown.xml", text);
  const std::string out = dir.path() + "/u.json";
  const auto u = run_linksim("topo import " + shell_quote(unknown) + " --nvlink nvswitch -o " +
                             shell_quote(out));
  EXPECT_EQ(u.exit_code, 2);
  EXPECT_EQ(u.err, "linksim: error: --gpu: required for " + unknown +
                       ": its GPU <pci busid=\"0000:10:1c.0\"> (line 18) states PCI id "
                       "10de:20b7, which names no GPU model linksim knows; give the model with "
                       "--gpu\n");
  EXPECT_FALSE(std::filesystem::exists(out));
  // A printout names no model at all.
  const auto smi = run_linksim(
      "topo import " + shell_quote(source_dir() + "/tests/data/real/smi/dgx-a100-10nic.txt") +
      " -o " + shell_quote(out));
  EXPECT_EQ(smi.exit_code, 2);
  EXPECT_EQ(smi.err.rfind("linksim: error: --gpu: required for a printout, which does not name "
                          "its GPUs' model; known models: ",
                          0),
            0u)
      << smi.err;
}

}  // namespace
}  // namespace linksim
