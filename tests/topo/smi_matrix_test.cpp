// The `nvidia-smi topo -m` view: shipped machines against real printouts, cell by cell, and
// printouts imported back into machines.
#include "sim/topo/smi_matrix.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

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

// nvidia-smi's printf layout, as tab-preserving pastes of real printouts show it (driver 5xx;
// e.g. a 2x GPU box: "\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID" then
// "GPU0\t X \tPHB\t0-63\t0\t\tN/A"): a tab before every column, " X " on the diagonal, the NUMA
// affinity followed by two tabs, NIC rows ending in four tabs, then the legend.
TEST(SmiMatrixTest, FormatsInNvidiaSmiLayout) {
  const Topology t = load_topology("rtx2080ti-2x");
  EXPECT_EQ(
      format_smi_matrix(smi_matrix(t, Router(t))),
      "\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n"
      "GPU0\t X \tPIX\t24-47,72-95\t1\t\tN/A\n"
      "GPU1\tPIX\t X \t24-47,72-95\t1\t\tN/A\n"
      "\n"
      "Legend:\n"
      "\n"
      "  X    = Self\n"
      "  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes "
      "(e.g., QPI/UPI)\n"
      "  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host "
      "Bridges within a NUMA node\n"
      "  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)\n"
      "  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host "
      "Bridge)\n"
      "  PIX  = Connection traversing at most a single PCIe bridge\n"
      "  NV#  = Connection traversing a bonded set of # NVLinks\n");
}

TEST(SmiMatrixTest, NicRowsAndTheNicLegendAsNvidiaSmiPrintsThem) {
  const Topology t = load_topology("dgx-a100");
  const std::string text = format_smi_matrix(smi_matrix(t, Router(t)));
  // NIC0 hangs off GPU0/GPU1's PCIe switch with NIC1 (PXB to them, PIX to each other), SYS to
  // the rest; its row has no affinity values but keeps their four tabs.
  EXPECT_NE(text.find("\nNIC0\tPXB\tPXB\tSYS\tSYS\tSYS\tSYS\tSYS\tSYS\t X \tPIX\tSYS\tSYS\tSYS\tSYS"
                      "\tSYS\tSYS\tSYS\tSYS\tSYS\tSYS\t\t\t\t\n"),
            std::string::npos)
      << text;
  // The NIC legend closes the printout, naming each NIC by its device name, and ends with an
  // empty line as nvidia-smi's does.
  const std::string tail =
      "\nNIC Legend:\n\n  NIC0: nic0\n  NIC1: nic1\n  NIC2: nic2\n  NIC3: nic3\n  NIC4: nic4\n"
      "  NIC5: nic5\n  NIC6: nic6\n  NIC7: nic7\n  NIC8: snic0\n  NIC9: snic1\n  NIC10: snic2\n"
      "  NIC11: snic3\n\n";
  ASSERT_GE(text.size(), tail.size());
  EXPECT_EQ(text.substr(text.size() - tail.size()), tail);
}

TEST(SmiMatrixTest, CsvAndJsonCarryTheSameCells) {
  const Topology t = load_topology("rtx2080ti-2x");
  const SmiMatrix m = smi_matrix(t, Router(t));
  // The CPU list holds commas, so CSV quotes it (RFC 4180).
  EXPECT_EQ(smi_matrix_csv(m),
            "device,GPU0,GPU1,CPU Affinity,NUMA Affinity,GPU NUMA ID\n"
            "GPU0,X,PIX,\"24-47,72-95\",1,N/A\n"
            "GPU1,PIX,X,\"24-47,72-95\",1,N/A\n");
  const Json doc = Json::parse(smi_matrix_json(m));
  EXPECT_EQ(doc["columns"], Json({"GPU0", "GPU1"}));
  EXPECT_EQ(doc["rows"][1]["device"], "GPU1");
  EXPECT_EQ(doc["rows"][1]["cells"], Json({"PIX", "X"}));
  EXPECT_EQ(doc["rows"][1]["cpu_affinity"], "24-47,72-95");
  EXPECT_EQ(doc["rows"][1]["numa_affinity"], "1");
  EXPECT_EQ(doc["nic_legend"], Json::object());
}

// A printout with its tabs expanded to 8-column stops, as terminals and the web pages that
// tests/data/smi was copied from show it.
std::string expand_tabs(const std::string& text) {
  std::string out;
  std::size_t column = 0;
  for (char c : text) {
    if (c == '\t') {
      do {
        out += ' ';
      } while (++column % 8 != 0);
    } else {
      out += c;
      column = c == '\n' ? 0 : column + 1;
    }
  }
  return out;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    out.push_back(line);
  return out;
}

// The shipped machine's printout, tabs expanded, is the real printout character for character:
// the header and the first `rows` rows (those the stored excerpt holds in full).
void expect_same_text_as_reference(const std::string& name, std::size_t rows) {
  const Topology t = load_topology(name);
  const auto ours = lines_of(expand_tabs(format_smi_matrix(smi_matrix(t, Router(t)))));
  auto real = lines_of(printout(name));
  real.erase(real.begin());  // the "# source:" line
  ASSERT_GE(real.size(), rows + 1);
  ASSERT_GE(ours.size(), rows + 1);
  for (std::size_t i = 0; i <= rows; ++i)
    EXPECT_EQ(ours[i], real[i]) << name << " line " << i;
}

TEST(SmiMatrixTest, Rtx2080TiPrintsTheRealPrintoutsText) {
  expect_same_text_as_reference("rtx2080ti-2x", 2);
}
TEST(SmiMatrixTest, Rtx3090NvlinkPairsPrintTheRealPrintoutsText) {
  expect_same_text_as_reference("rtx3090-4x-nvlink-pairs", 4);
}
TEST(SmiMatrixTest, DgxA100PrintsTheRealPrintoutsText) {
  expect_same_text_as_reference("dgx-a100", 4);  // GPU4's row is cut off in the excerpt
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

// A printout in nvidia-smi's tab layout with a NIC legend: 2 GPUs on NUMA node 0 behind one
// PCIe switch with mlx5_0, and mlx5_1 on the other socket (SYS to both GPUs).
const char* kTwoGpusTwoNics =
    "\tGPU0\tGPU1\tNIC0\tNIC1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n"
    "GPU0\t X \tPIX\tPIX\tSYS\t0-15\t0\t\tN/A\n"
    "GPU1\tPIX\t X \tPIX\tSYS\t0-15\t0\t\tN/A\n"
    "NIC0\tPIX\tPIX\t X \tSYS\t\t\t\t\n"
    "NIC1\tSYS\tSYS\tSYS\t X \t\t\t\t\n"
    "\n"
    "Legend:\n"
    "\n"
    "  X    = Self\n"
    "  NV#  = Connection traversing a bonded set of # NVLinks\n"
    "\n"
    "NIC Legend:\n"
    "\n"
    "  NIC0: mlx5_0\n"
    "  NIC1: mlx5_1\n";

SmiImport import_text(const std::string& text, const std::string& gpu) {
  SmiImportOptions options;
  options.gpu_model = gpu;
  options.source = "p.txt";
  return import_smi(parse_smi_printout(text, "p.txt"), options);
}

// The cpu nodes of an imported document, as "id:numa" ("id:-" without a NUMA number).
std::vector<std::string> cpu_nodes(const Json& doc) {
  std::vector<std::string> out;
  for (const auto& n : doc["nodes"]) {
    if (n["kind"] != "cpu") continue;
    out.push_back(n["id"].get<std::string>() + ":" +
                  (n.contains("numa_node") ? std::to_string(n["numa_node"].get<int>()) : "-"));
  }
  return out;
}

TEST(SmiImportTest, NicsKeepTheirNamesFromTheNicLegend) {
  const SmiMatrix m = parse_smi_printout(kTwoGpusTwoNics, "p.txt");
  EXPECT_EQ(m.nic_names, (std::vector<std::string>{"mlx5_0", "mlx5_1"}));
  const SmiImport imported = import_text(kTwoGpusTwoNics, "A100-SXM4-80GB");
  std::vector<std::string> nics;
  for (const auto& n : imported.document["nodes"]) {
    if (n["kind"] == "nic") nics.push_back(n["id"]);
  }
  EXPECT_EQ(nics, (std::vector<std::string>{"mlx5_0", "mlx5_1"}));
  // Shown again, the machine prints the same matrix and the same NIC legend.
  const Topology t = parse_topology(imported.document, "imported.json");
  const std::string shown = format_smi_matrix(smi_matrix(t, Router(t)));
  EXPECT_TRUE(compare_smi(m, smi_matrix(t, Router(t))).empty());
  EXPECT_NE(shown.find("\nNIC Legend:\n\n  NIC0: mlx5_0\n  NIC1: mlx5_1\n"), std::string::npos);
}

TEST(SmiImportTest, ALegendNamingAMissingNicIsRefusedWithTheLine) {
  std::string text = kTwoGpusTwoNics;
  text += "  NIC2: mlx5_2\n";  // line 16: the matrix has NIC0 and NIC1 only
  try {
    parse_smi_printout(text, "p.txt");
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "p.txt: at line 16: NIC legend names NIC2, but the matrix has 2 NIC columns");
  }
}

TEST(SmiImportTest, NicsSysToEveryGpuGetACpuWithoutAnInventedNumaNode) {
  // mlx5_1 is SYS to both GPUs: it needs a CPU node of its own, but the printout names no
  // NUMA node for it, so the node has none (before: NUMA 1, which this machine may not have).
  const SmiImport imported = import_text(kTwoGpusTwoNics, "A100-SXM4-80GB");
  EXPECT_EQ(cpu_nodes(imported.document), (std::vector<std::string>{"cpu0:0", "cpu1:-"}));
}

TEST(SmiImportTest, DgxA100HasOnlyTheNumaNodesItsPrintoutShows) {
  // The shipped DGX A100 prints GPU NUMA affinities 3, 3, 1, 1, 7, 7, 5, 5; its four storage
  // NICs (NIC8..NIC11) are SYS to every GPU, PHB in pairs: two GPU-less CPU nodes, no number.
  const Topology dgx = load_topology("dgx-a100");
  const SmiImport imported =
      import_text(format_smi_matrix(smi_matrix(dgx, Router(dgx))), "A100-SXM4-80GB");
  EXPECT_EQ(cpu_nodes(imported.document),
            (std::vector<std::string>{"cpu0:1", "cpu1:3", "cpu2:5", "cpu3:7", "cpu4:-", "cpu5:-"}));
}

TEST(SmiImportTest, NumaNotAvailableGroupsGpusByTheirCpuAffinity) {
  // NUMA N/A on both GPUs, two CPU affinities and SYS between them: two CPU nodes, no NUMA
  // number on either (not "0" for both, which could not print SYS between them).
  const std::string text =
      "\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n"
      "GPU0\t X \tSYS\t0-7\tN/A\t\tN/A\n"
      "GPU1\tSYS\t X \t8-15\tN/A\t\tN/A\n";
  const SmiImport imported = import_text(text, "A100-SXM4-80GB");
  EXPECT_EQ(cpu_nodes(imported.document), (std::vector<std::string>{"cpu0:-", "cpu1:-"}));
  const Topology t = parse_topology(imported.document, "imported.json");
  EXPECT_TRUE(compare_smi(parse_smi_printout(text, "p.txt"), smi_matrix(t, Router(t))).empty());
}

TEST(SmiImportTest, WithoutAnyAffinityGpusSplitWhereThePrintoutShowsSys) {
  // An old printout with no affinity columns: GPU0/GPU1 PIX, GPU2 SYS to both.
  const std::string text =
      "        GPU0    GPU1    GPU2\n"
      "GPU0     X      PIX     SYS\n"
      "GPU1    PIX      X      SYS\n"
      "GPU2    SYS     SYS      X\n";
  const SmiImport imported = import_text(text, "A100-SXM4-80GB");
  EXPECT_EQ(cpu_nodes(imported.document), (std::vector<std::string>{"cpu0:-", "cpu1:-"}));
  const Topology t = parse_topology(imported.document, "imported.json");
  EXPECT_TRUE(compare_smi(parse_smi_printout(text, "p.txt"), smi_matrix(t, Router(t))).empty());
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

// CPU Affinity lists run forwards and stay below Linux's 8192 CPUs (CPU 8191 is the last).
TEST(SmiImportTest, CpuAffinityRangesRunForwardsWithinLinuxsCpus) {
  const auto error_with = [](const std::string& cpus) {
    std::string text = kTwoGpusTwoNics;
    text.replace(text.find("0-15"), 4, cpus);
    try {
      parse_smi_printout(text, "p.txt");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_EQ(error_with("0-15,8100-8191"), "(no error)");
  EXPECT_EQ(error_with("99999-1"),
            "p.txt: at line 2: GPU0 CPU Affinity \"99999-1\": the range 99999-1 runs "
            "backwards; expected low-high such as 0-31");
  EXPECT_EQ(error_with("0-15,32-8192"),
            "p.txt: at line 2: GPU0 CPU Affinity \"0-15,32-8192\": CPU 8192 is beyond the "
            "8192 CPUs Linux numbers; expected CPU numbers such as 0-31,64-95");
  EXPECT_EQ(error_with("99999999999999999999"),
            "p.txt: at line 2: GPU0 CPU Affinity \"99999999999999999999\": CPU "
            "99999999999999999999 is beyond the 8192 CPUs Linux numbers; expected CPU numbers "
            "such as 0-31,64-95");
}

TEST(SmiMatrixTest, AnOverlongLineIsRefusedBeforeAnyRegexSeesIt) {
  // Found by the smi_printout fuzzer: std::regex recursed once per character of a long legend
  // entry until the stack overflowed (a 3,000,006-character line crashed the release build).
  const std::string text =
      "        GPU0    NIC0    CPU Affinity    NUMA Affinity\n"
      "GPU0     X      PIX     0-7     0\n"
      "NIC0    PIX      X\n\nNIC Legend:\n\n  NIC0: mlx5_" +
      std::string(3'000'000, 'j') + "\n";
  try {
    parse_smi_printout(text, "long.txt");
    FAIL() << "an overlong line was accepted";
  } catch (const InputError& e) {
    // The line: 8 characters "  NIC0: ", 5 of "mlx5_", 3,000,000 of j = 3,000,013.
    EXPECT_STREQ(e.what(),
                 "long.txt: at line 7: 3000013 characters; an nvidia-smi topo -m printout's lines "
                 "are at most 4096 (is this the printout?)");
  }
}

}  // namespace
}  // namespace linksim::topo
