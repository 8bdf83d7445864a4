// The `nvidia-smi topo -m` view: shipped machines against real printouts, cell by cell, and
// printouts imported back into machines.
#include "sim/topo/smi_matrix.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "sim/core/error.hpp"
#include "sim/topo/loader.hpp"
#include "sim/topo/smi_matrix_compare.hpp"
#include "sim/topo/smi_matrix_format.hpp"
#include "sim/topo/smi_matrix_import.hpp"
#include "sim/topo/smi_matrix_parse.hpp"
#include "tests/support/temp_files.hpp"

namespace linksim::topo {
namespace {

using linksim::testing::read_file;
using linksim::testing::source_dir;

std::string printout(const std::string& name) {
  return read_file(source_dir() + "/tests/data/smi/" + name + ".txt");
}

// Shipped machine vs the reference printout of the same name (tests/data/smi, copied from
// ../shared/reference/measurements.md).
void expect_matches_reference(const std::string& name) {
  const Topology t = load_topology(name);
  const Router router(t);
  const SmiMatrix reference = parse_smi_printout(printout(name), name + ".txt");
  const auto diffs = compare_smi(reference, smi_matrix(t, router));
  EXPECT_TRUE(diffs.empty()) << name << ":\n" << fmt::format("{}", fmt::join(diffs, "\n"));
  // The comparison covered every printed row.
  EXPECT_GE(reference.rows.size(), 2u);
}

TEST(SmiMatrixTest, Rtx2080TiBoxMatchesItsPrintout) {
  expect_matches_reference("rtx2080ti-2x");
}
TEST(SmiMatrixTest, DgxA100MatchesItsPrintout) {
  expect_matches_reference("dgx-a100");
}
TEST(SmiMatrixTest, Dgx1VMatchesItsPrintout) {
  expect_matches_reference("dgx-1v");
}
TEST(SmiMatrixTest, A100NvlinkPairsMatchItsPrintout) {
  expect_matches_reference("a100-8x-nvlink-pairs");
}
TEST(SmiMatrixTest, Rtx3090NvlinkPairsMatchItsPrintout) {
  expect_matches_reference("rtx3090-4x-nvlink-pairs");
}

TEST(SmiMatrixTest, ParsesTheOldLegendAndNicNames) {
  const SmiMatrix m = parse_smi_printout(printout("dgx-1v"), "dgx-1v.txt");
  ASSERT_EQ(m.columns.size(), 12u);  // 8 GPUs + 4 mlx5 NICs
  EXPECT_EQ(m.columns[8], "NIC0");
  EXPECT_EQ(m.nic_names[1], "mlx5_2");
  ASSERT_GE(m.rows.size(), 4u);
  EXPECT_EQ(m.rows[0].cells[5], "SYS");  // printed as SOC
  EXPECT_EQ(m.rows[0].cells[3], "NV2");
  EXPECT_EQ(m.rows[0].cpu_affinity, "0-19,40-59");
}

TEST(SmiMatrixTest, FormatsInNvidiaSmiLayout) {
  const Topology t = load_topology("rtx2080ti-2x");
  const std::string text = format_smi_matrix(smi_matrix(t, Router(t)));
  // Header and first row exactly as nvidia-smi lays them out (8-wide columns).
  EXPECT_EQ(text.substr(0, text.find("\nGPU1")),
            "        GPU0    GPU1    CPU Affinity    NUMA Affinity   GPU NUMA ID\n"
            "GPU0     X      PIX     24-47,72-95     1               N/A");
  EXPECT_NE(text.find("  PIX  = Connection traversing at most a single PCIe bridge"),
            std::string::npos);
}

// Import a complete printout, load the result, and print it again: the same cells.
void expect_import_round_trips(const std::string& name, const std::string& gpu,
                               const std::string& vendor) {
  const SmiMatrix m = parse_smi_printout(printout(name), name + ".txt");
  SmiImportOptions options;
  options.gpu_model = gpu;
  options.cpu_vendor = vendor;
  options.source = name + ".txt";
  const SmiImport imported = import_smi(m, options);
  const Topology t = parse_topology(imported.document, name + "-imported.json");
  const auto diffs = compare_smi(m, smi_matrix(t, Router(t)));
  EXPECT_TRUE(diffs.empty()) << name << ":\n" << fmt::format("{}", fmt::join(diffs, "\n"));
  EXPECT_FALSE(imported.assumed.empty());
}

TEST(SmiImportTest, Rtx2080TiRoundTrips) {
  expect_import_round_trips("rtx2080ti-2x", "RTX-2080-Ti", "intel");
}
TEST(SmiImportTest, A100NvlinkPairsRoundTrip) {
  expect_import_round_trips("a100-8x-nvlink-pairs", "A100-SXM4-80GB", "amd");
}
TEST(SmiImportTest, Rtx3090NvlinkPairsRoundTrip) {
  expect_import_round_trips("rtx3090-4x-nvlink-pairs", "RTX-3090", "amd");
}

TEST(SmiImportTest, ShippedMachinesRoundTripThroughTheirOwnPrintout) {
  // For every shipped machine: show -> import -> show gives the same matrix.
  int checked = 0;
  for (const auto& file : shipped_topology_files()) {
    const Topology t = load_topology(file);
    // nvidia-smi prints no matrix for AMD Instinct machines: their GPU-GPU xgmi links show as
    // SYS (linksim's class for a socket link) beside same-socket NICs, a view no printout has.
    if (t.node(t.nodes_of(NodeKind::gpu).front()).gpu->architecture.rfind("cdna", 0) == 0) {
      continue;
    }
    const SmiMatrix shown = smi_matrix(t, Router(t));
    const SmiMatrix reread = parse_smi_printout(format_smi_matrix(shown), file);
    SmiImportOptions options;
    options.gpu_model = t.node(t.nodes_of(NodeKind::gpu).front()).model;
    options.source = file;
    const SmiImport imported = import_smi(reread, options);
    const Topology back = parse_topology(imported.document, file + " (imported)");
    const auto diffs = compare_smi(reread, smi_matrix(back, Router(back)));
    EXPECT_TRUE(diffs.empty()) << file << ":\n" << fmt::format("{}", fmt::join(diffs, "\n"));
    ++checked;
  }
  EXPECT_GE(checked, 8);
}

TEST(SmiImportTest, TruncatedPrintoutIsRefusedWithTheRowNamed) {
  const SmiMatrix m = parse_smi_printout(printout("dgx-1v"), "dgx-1v.txt");
  SmiImportOptions options;
  options.gpu_model = "V100-SXM2-32GB";
  options.source = "dgx-1v.txt";
  try {
    import_smi(m, options);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(
        std::string(e.what()),
        "dgx-1v.txt: at line 2: column GPU5 has no row; importing needs every GPU row in full");
  }
}

TEST(SmiImportTest, GarbageIsRefusedWithTheLine) {
  try {
    parse_smi_printout("        GPU0    GPU1\nGPU0     X      FOO\n", "p.txt");
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "p.txt: at line 2: unexpected cell \"FOO\" in row GPU0; expected X, NV#, PIX, PXB, "
              "PHB, NODE or SYS");
  }
  EXPECT_THROW(parse_smi_printout("no matrix here\n", "p.txt"), InputError);
}

}  // namespace
}  // namespace linksim::topo
