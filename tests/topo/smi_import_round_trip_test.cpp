// Importing an `nvidia-smi topo -m` printout gives a machine that re-prints every class and NIC
// name exactly, or fails naming the cell it cannot (issue 37, item 1): NUMA lists, the PCIe
// classes a DGX A100 and a GB200 tray print, and the assumptions the import states.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/topo/loader.hpp"
#include "sim/topo/routing.hpp"
#include "sim/topo/smi_matrix.hpp"
#include "sim/topo/smi_matrix_compare.hpp"
#include "sim/topo/smi_matrix_format.hpp"
#include "sim/topo/smi_matrix_import.hpp"
#include "sim/topo/smi_matrix_parse.hpp"
#include "tests/support/temp_files.hpp"
#include "tests/support/thrown_message.hpp"

namespace linksim::topo {
namespace {

using linksim::testing::thrown_message;

SmiImport import_text(const std::string& text, const std::string& gpu = "A100-SXM4-80GB") {
  SmiImportOptions options;
  options.gpu_model = gpu;
  options.source = "p.txt";
  return import_smi(parse_smi_printout(text, "p.txt"), options);
}

// The imported machine's matrix against the printout's.
std::vector<std::string> reprint_differences(const std::string& text, const SmiImport& imported) {
  const Topology t = parse_topology(imported.document, "imported.json");
  return compare_smi(parse_smi_printout(text, "p.txt"), smi_matrix(t, Router(t)));
}

// A DGX A100 tray's PCIe switch as nvidia-smi prints it: two GPUs and two NICs PXB to each
// other, no PIX pair among them. The import used to hang all four off one switch, which prints
// PIX (20 cells of a real DGX A100 printout came back PIX).
TEST(SmiImportRoundTripTest, PxbWithoutAPixPairStaysPxb) {
  const std::string text =
      "\tGPU0\tGPU1\tNIC0\tNIC1\tCPU Affinity\tNUMA Affinity\n"
      "GPU0\t X \tNV12\tPXB\tPXB\t48-63,176-191\t3\n"
      "GPU1\tNV12\t X \tPXB\tPXB\t48-63,176-191\t3\n"
      "NIC0\tPXB\tPXB\t X \tPXB\t\t\n"
      "NIC1\tPXB\tPXB\tPXB\t X \t\t\n";
  const SmiImport imported = import_text(text);
  EXPECT_EQ(reprint_differences(text, imported), std::vector<std::string>{});
}

// A GB200-like tray whose GPUs print their own NUMA nodes but reach one NIC within a NUMA node:
// NODE says they share a CPU node. Grouping by the printed NUMA number alone put NIC0 with
// GPU0 only, so GPU1/NIC0 came back SYS.
const char* kNodeAcrossNumaNumbers =
    "\tGPU0\tGPU1\tNIC0\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n"
    "GPU0\t X \tNV18\tNODE\t0-71\t2\t\t2\n"
    "GPU1\tNV18\t X \tNODE\t0-71\t10\t\t10\n"
    "NIC0\tNODE\tNODE\t X \t\t\t\t\n"
    "\n"
    "NIC Legend:\n"
    "\n"
    "  NIC0: mlx5_0\n";

TEST(SmiImportRoundTripTest, NodeCellsStayNodeAcrossGpusOfDifferentNumaNumbers) {
  const SmiImport imported = import_text(kNodeAcrossNumaNumbers, "GB200");
  // Every cell comes back; only what a cpu node cannot hold (one NUMA number, no GPU NUMA ID)
  // re-prints otherwise, and the assumptions say so.
  EXPECT_EQ(reprint_differences(kNodeAcrossNumaNumbers, imported),
            (std::vector<std::string>{"GPU0 GPU NUMA ID: expected 2, got N/A",
                                      "GPU1 NUMA Affinity: expected 10, got 2",
                                      "GPU1 GPU NUMA ID: expected 10, got N/A"}));
  EXPECT_NE(std::find(imported.assumed.begin(), imported.assumed.end(),
                      "GPU1 shares a CPU node with a GPU of another affinity (the printout shows "
                      "a PCIe class other than SYS between them or their NICs); its affinity "
                      "re-prints as that GPU's"),
            imported.assumed.end())
      << fmt::format("{}", fmt::join(imported.assumed, "\n"));
}

// nvidia-smi prints NUMA affinity as lists and ranges where a GPU is close to several nodes
// (GB200: "0,3-9,11-17"); a cpu node has one number, the first listed.
TEST(SmiImportRoundTripTest, NumaListsAndRangesImportAsTheirFirstNode) {
  const std::string text =
      "\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n"
      "GPU0\t X \tNV18\t0-71\t0,3-9,11-17\t\t2\n"
      "GPU1\tNV18\t X \t72-143\t1-2\t\t18\n";
  const SmiImport imported = import_text(text, "GB200");
  EXPECT_EQ(reprint_differences(text, imported),
            (std::vector<std::string>{"GPU0 NUMA Affinity: expected 0,3-9,11-17, got 0",
                                      "GPU0 GPU NUMA ID: expected 2, got N/A",
                                      "GPU1 NUMA Affinity: expected 1-2, got 1",
                                      "GPU1 GPU NUMA ID: expected 18, got N/A"}));
  EXPECT_NE(std::find(imported.assumed.begin(), imported.assumed.end(),
                      "GPU0, GPU1 print a list of NUMA nodes; a machine file's CPU node has one "
                      "NUMA number, the first listed, so their NUMA Affinity re-prints as that "
                      "number"),
            imported.assumed.end());
}

TEST(SmiImportRoundTripTest, ANumaListThatCannotBeIsRefusedWithItsLine) {
  const auto error_with = [](const std::string& numa) {
    return thrown_message<InputError>([&] {
      parse_smi_printout("\tGPU0\tCPU Affinity\tNUMA Affinity\nGPU0\t X \t0-7\t" + numa + "\n",
                         "p.txt");
    });
  };
  EXPECT_EQ(error_with("0,2"), "accepted");
  EXPECT_EQ(error_with("N/A"), "accepted");
  EXPECT_EQ(error_with("3-1"),
            "p.txt: at line 2: GPU0 NUMA Affinity \"3-1\": the range 3-1 runs backwards; "
            "expected low-high such as 0-1");
  EXPECT_EQ(error_with("0,1024"),
            "p.txt: at line 2: GPU0 NUMA Affinity \"0,1024\": NUMA node 1024 is beyond the 1024 "
            "nodes Linux numbers");
  EXPECT_EQ(error_with("zero"),
            "p.txt: at line 2: GPU0 NUMA Affinity \"zero\": expected a NUMA node number, a list "
            "or range of them such as 0-1 or 0,2, or N/A");
}

// PIX is one shared switch, so it cannot hold for GPU0-GPU1 and GPU1-GPU2 but not GPU0-GPU2:
// no machine prints this, and the import says which cell, instead of writing a machine that
// prints PIX there.
TEST(SmiImportRoundTripTest, ACellNoMachinePrintsFailsTheImportNamingIt) {
  const std::string text =
      "\tGPU0\tGPU1\tGPU2\tCPU Affinity\tNUMA Affinity\n"
      "GPU0\t X \tPIX\tPXB\t0-7\t0\n"
      "GPU1\tPIX\t X \tPIX\t0-7\t0\n"
      "GPU2\tPXB\tPIX\t X \t0-7\t0\n";
  EXPECT_EQ(thrown_message<InputError>([&] { import_text(text); }),
            "p.txt: at line 2: GPU0/GPU2: expected PXB, got PIX in the machine rebuilt from the "
            "printout; linksim cannot represent this cell together with the rest of the matrix, "
            "so nothing was imported");
}

// Every count and kind the printout does not show is listed: the socket links (the kind and
// that there is one per pair), the PCIe switches and host bridges, the NICs' model and speed.
TEST(SmiImportRoundTripTest, TheAssumptionsNameEveryCountAndKind) {
  const std::string text =
      "\tGPU0\tGPU1\tNIC0\tCPU Affinity\tNUMA Affinity\n"
      "GPU0\t X \tSYS\tPIX\t0-15\t0\n"
      "GPU1\tSYS\t X \tSYS\t16-31\t1\n"
      "NIC0\tPIX\tSYS\t X \t\t\n"
      "\n"
      "NIC Legend:\n"
      "\n"
      "  NIC0: mlx5_0\n";
  EXPECT_EQ(
      import_text(text).assumed,
      (std::vector<std::string>{
          "PCIe 4.0 x16 for every PCIe link (from the GPU model)",
          "1 PCIe switch: one per group of devices PIX to each other (or alone under a PXB "
          "group), and one above each PXB group; the printout shows neither how many bridges a "
          "PXB path crosses nor how wide they are",
          "2 PCIe host bridges: one per group of devices PHB (or closer) to each other; devices "
          "NODE to each other are on different ones",
          "2 cpu nodes of vendor \"intel\" (given or the default; nvidia-smi does not print it): "
          "cpu0 (NUMA 0), cpu1 (NUMA 1)",
          "1 UPI link, of UPI's default generation and speed, between each pair of cpu nodes "
          "(cpu0-cpu1): the printout shows SYS, not how many socket links there are nor their "
          "kind or speed",
          "link latencies are the per-kind defaults (docs/topology-format.md)",
          "1 NIC of no particular model, at the nic kind's default port bandwidth, with no "
          "network links (single node): the printout names neither model nor speed"}));
}

// NIC names come from the legend as printed, each on its own: a NIC the legend leaves out is
// the only one named nic<i>, and the re-printed legend ends with nvidia-smi's empty line.
TEST(SmiImportRoundTripTest, NicNamesAreKeptAsPrintedOneByOne) {
  const std::string text =
      "\tGPU0\tNIC0\tNIC1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n"
      "GPU0\t X \tPIX\tPIX\t0-15\t0\t\tN/A\n"
      "NIC0\tPIX\t X \tPIX\t\t\t\t\n"
      "NIC1\tPIX\tPIX\t X \t\t\t\t\n"
      "\n"
      "NIC Legend:\n"
      "\n"
      "  NIC0: mlx5_bond_0\n";
  const SmiImport imported = import_text(text);
  const Topology t = parse_topology(imported.document, "imported.json");
  const std::string shown = format_smi_matrix(smi_matrix(t, Router(t)));
  const std::string tail = "NIC Legend:\n\n  NIC0: mlx5_bond_0\n  NIC1: nic1\n\n";
  ASSERT_GE(shown.size(), tail.size());
  EXPECT_EQ(shown.substr(shown.size() - tail.size()), tail);
  EXPECT_EQ(imported.assumed.front(),
            "NIC1 is nic1 (the printout's NIC legend gives no distinct name that can be a node "
            "id)");
}

// An older driver's header (no GPU NUMA ID) is kept, so the matrix prints as that driver did.
TEST(SmiImportRoundTripTest, TheHeadersAffinityColumnsAreThoseOfThePrintout) {
  const SmiMatrix m = parse_smi_printout(
      "\tGPU0\tNIC0\tCPU Affinity\tNUMA Affinity\n"
      "GPU0\t X \tPIX\t0-15\t0\n"
      "NIC0\tPIX\t X \t\t\n",
      "p.txt");
  EXPECT_EQ(m.affinity_columns, (std::vector<std::string>{"CPU Affinity", "NUMA Affinity"}));
  const std::string text = format_smi_matrix(m);
  EXPECT_EQ(text.substr(0, text.find("\n\nLegend")),
            "\tGPU0\tNIC0\tCPU Affinity\tNUMA Affinity\n"
            "GPU0\t X \tPIX\t0-15\t0\n"
            "NIC0\tPIX\t X \t\t");
}

}  // namespace
}  // namespace linksim::topo
