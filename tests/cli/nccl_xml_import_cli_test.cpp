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

}  // namespace
}  // namespace linksim
