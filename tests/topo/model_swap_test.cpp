// replace_models: a swapped GPU carries its own interconnect, or the swap is refused with the
// file, /replace_models/<model> and what differs.
#include "sim/topo/model_swap.hpp"

#include <gtest/gtest.h>

#include <string>

#include "sim/core/error.hpp"
#include "sim/topo/loader.hpp"
#include "sim/topo/routing.hpp"
#include "tests/support/temp_files.hpp"
#include "tests/support/thrown_message.hpp"

namespace linksim::topo {
namespace {

using linksim::testing::TempDir;

// A file that takes `base` (a path) and swaps `from` for `to`.
std::string swap_doc(const std::string& base, const std::string& from, const std::string& to) {
  Json doc = {{"title", "swapped"}, {"sources", {"test fixture"}}, {"base", base}};
  doc["replace_models"] = {{from, to}};
  return doc.dump();
}

std::string shipped(const std::string& name) {
  return shipped_topology_dir() + "/" + name + ".json";
}

// Loads `path` and returns the error text, or "accepted" when it loads.
std::string load_error(const std::string& path) {
  return testing::thrown_message<InputError>([&] { load_topology(path); });
}

// Two GPUs of `model0` and `model1` on one CPU over PCIe `pcie_gen`, joined directly by
// `lanes` NVLink 3 links when lanes > 0; `nvlink_bw` / `pcie_bw` override those links.
std::string pair_doc(const std::string& model0, const std::string& model1, int lanes,
                     int pcie_gen = 4, const std::string& nvlink_bw = "",
                     const std::string& pcie_bw = "") {
  Json doc = {{"title", "pair"}, {"sources", {"test fixture"}}};
  doc["nodes"] = {{{"id", "gpu0"}, {"kind", "gpu"}, {"model", model0}},
                  {{"id", "gpu1"}, {"kind", "gpu"}, {"model", model1}},
                  {{"id", "cpu0"}, {"kind", "cpu"}, {"vendor", "amd"}}};
  Json pcie = {{"for", {{"g", "0..1"}}}, {"a", "gpu{g}"},          {"b", "cpu0"},
               {"kind", "pcie"},         {"generation", pcie_gen}, {"host_bridge", "{g}"}};
  if (!pcie_bw.empty()) pcie["bandwidth"] = pcie_bw;
  doc["links"] = Json::array({pcie});  // {pcie} alone is pcie itself under clang
  if (lanes > 0) {
    Json nv = {
        {"a", "gpu0"}, {"b", "gpu1"}, {"kind", "nvlink"}, {"generation", 3}, {"lanes", lanes}};
    if (!nvlink_bw.empty()) nv["bandwidth"] = nvlink_bw;
    doc["links"].push_back(nv);
  }
  return doc.dump();
}

const std::string kTail =
    "; expected a model with the base's NVLink wiring, or a machine file with its own nodes and "
    "links";

TEST(ModelSwapTest, H100ToB200ReRatesTheNvlinksAtGeneration5) {
  TempDir dir;
  const Topology t =
      load_topology(dir.write("b.json", swap_doc(shipped("dgx-h100"), "H100-SXM5-80GB", "B200")));
  EXPECT_EQ(t.node(0).gpu->name, "B200");
  // dgx-h100's first link: gpu0-nvswitch0, 5 links; NVLink 5 at 50 GB/s each = 250 GB/s.
  EXPECT_EQ(t.link(0).generation, 5);
  EXPECT_DOUBLE_EQ(t.link(0).bandwidth_Bps, 250e9);
  EXPECT_EQ(t.link(0).provenance.basis, "theoretical");
  EXPECT_EQ(t.channel_name(Topology::channel(0, true)), "gpu0->nvswitch0 (NVLink 5 x5)");
  const Router r(t);
  // 18 links x 50 GB/s = 900 GB/s per direction between two GPUs (it was 18 x 25 = 450).
  EXPECT_DOUBLE_EQ(r.route(0, 1)->bandwidth_Bps(), 900e9);
  EXPECT_EQ(r.nvlink_count(0, 1), 18);
  // PCIe 5.0 x16 on both ends: the GPU's link keeps 4 GB/s x 16 = 64 GB/s. dgx-h100's two
  // NVLink entries make 8 x 2 + 8 x 2 = 32 links (0-31); link 32 is gpu0-pcisw0.
  EXPECT_EQ(t.link(32).kind, LinkKind::pcie);
  EXPECT_DOUBLE_EQ(t.link(32).bandwidth_Bps, 64e9);
}

TEST(ModelSwapTest, SameNvlinkKeepsTheBaseLinks) {
  // hgx-h200 swaps H100 for H200: both 18 NVLink 4 links, so 18 x 25 = 450 GB/s stays.
  const Topology t = load_topology("hgx-h200");
  EXPECT_EQ(t.link(0).generation, 4);
  EXPECT_DOUBLE_EQ(Router(t).route(0, 1)->bandwidth_Bps(), 450e9);
}

TEST(ModelSwapTest, FewerNvlinksThanTheBaseWiresIsRefused) {
  TempDir dir;
  const std::string path =
      dir.write("h800.json", swap_doc(shipped("dgx-h100"), "H100-SXM5-80GB", "H800-SXM5-80GB"));
  EXPECT_EQ(load_error(path),
            path +
                ": at /replace_models/H100-SXM5-80GB: \"H800-SXM5-80GB\" has 8 NVLink 4 links, "
                "but the base wires 18 NVLinks to gpu0 (drawn for H100-SXM5-80GB: 18 NVLink 4 "
                "links)" +
                kTail);
}

TEST(ModelSwapTest, AGpuWithoutNvlinkOnAnNvlinkBaseIsRefused) {
  TempDir dir;
  const std::string path =
      dir.write("g.json", swap_doc(shipped("dgx-h100"), "H100-SXM5-80GB", "RTX-5090"));
  EXPECT_EQ(load_error(path), path +
                                  ": at /replace_models/H100-SXM5-80GB: \"RTX-5090\" has no "
                                  "NVLink, but the base wires 18 NVLinks to gpu0 (drawn for "
                                  "H100-SXM5-80GB: 18 NVLink 4 links)" +
                                  kTail);
}

TEST(ModelSwapTest, ADirectLinkOfDefaultFiguresIsReRated) {
  TempDir dir;
  dir.write("base.json", pair_doc("A100-SXM4-80GB", "A100-SXM4-80GB", 12));
  // A100 (12 NVLink 3) -> H100 PCIe (12 NVLink 4): both ends swapped, the link re-rated once:
  // 12 x 25 GB/s = 300 GB/s at generation 4.
  const Topology t =
      load_topology(dir.write("h.json", swap_doc("base.json", "A100-SXM4-80GB", "H100-PCIE-80GB")));
  const Link& nv = t.link(2);
  EXPECT_EQ(nv.kind, LinkKind::nvlink);
  EXPECT_EQ(nv.generation, 4);
  EXPECT_DOUBLE_EQ(nv.bandwidth_Bps, 300e9);
  EXPECT_EQ(t.channel_name(Topology::channel(2, true)), "gpu0->gpu1 (NVLink 4 x12)");
}

TEST(ModelSwapTest, ALinkWithItsOwnBandwidthIsRefused) {
  TempDir dir;
  dir.write("base.json", pair_doc("A100-SXM4-80GB", "A100-SXM4-80GB", 12, 4, "250 GB/s"));
  const std::string path =
      dir.write("h.json", swap_doc("base.json", "A100-SXM4-80GB", "H100-PCIE-80GB"));
  EXPECT_EQ(load_error(path), path +
                                  ": at /replace_models/A100-SXM4-80GB: gpu0-gpu1 (NVLink 3 "
                                  "x12) has its own bandwidth (250 GB/s), which cannot be "
                                  "re-derived for NVLink 4 (H100-PCIE-80GB)" +
                                  kTail);
}

TEST(ModelSwapTest, ALinkToAGpuOfAnotherGenerationIsRefused) {
  TempDir dir;
  dir.write("base.json", pair_doc("A100-SXM4-80GB", "A100-PCIE-80GB", 12));
  const std::string path =
      dir.write("h.json", swap_doc("base.json", "A100-SXM4-80GB", "H100-PCIE-80GB"));
  EXPECT_EQ(load_error(path), path +
                                  ": at /replace_models/A100-SXM4-80GB: gpu0-gpu1 (NVLink 3 "
                                  "x12) would join H100-PCIE-80GB (NVLink 4) to "
                                  "A100-PCIE-80GB (12 NVLink 3 links)" +
                                  kTail);
}

TEST(ModelSwapTest, APcieBoxStaysAPcieBox) {
  // rtx4090-2x gives its GPUs no NVLink: an A100 PCIe (12 NVLink 3 links by bridge) swapped in
  // gets none, and PCIe 4.0 x16 stays 2 GB/s x 16 = 32 GB/s.
  TempDir dir;
  const Topology t = load_topology(
      dir.write("a.json", swap_doc(shipped("rtx4090-2x"), "RTX-4090", "A100-PCIE-80GB")));
  EXPECT_EQ(t.node(0).gpu->name, "A100-PCIE-80GB");
  EXPECT_EQ(Router(t).route(0, 1)->transport, Transport::pcie_p2p);
  EXPECT_DOUBLE_EQ(t.link(0).bandwidth_Bps, 32e9);
}

TEST(ModelSwapTest, APcie5GpuInAPcie4SlotRunsAtPcie4) {
  TempDir dir;
  const Topology t =
      load_topology(dir.write("5.json", swap_doc(shipped("rtx4090-2x"), "RTX-4090", "RTX-5090")));
  EXPECT_EQ(t.link(0).generation, 4);
  EXPECT_DOUBLE_EQ(t.link(0).bandwidth_Bps, 32e9);
}

TEST(ModelSwapTest, APcie4GpuInAPcie5SlotRunsAtPcie4) {
  TempDir dir;
  dir.write("base.json", pair_doc("H100-PCIE-80GB", "H100-PCIE-80GB", 0, 5));
  // PCIe 5.0 x16 (4 GB/s x 16 = 64 GB/s) trains at 4.0 with an RTX 4090: 2 GB/s x 16 = 32.
  const Topology t =
      load_topology(dir.write("4.json", swap_doc("base.json", "H100-PCIE-80GB", "RTX-4090")));
  EXPECT_EQ(t.link(0).generation, 4);
  EXPECT_DOUBLE_EQ(t.link(0).bandwidth_Bps, 32e9);
  EXPECT_EQ(t.channel_name(Topology::channel(1, true)), "gpu1->cpu0 (PCIe 4.0 x16)");
}

TEST(ModelSwapTest, APcieLinkWithItsOwnBandwidthIsRefusedWhenTheGenerationDrops) {
  TempDir dir;
  dir.write("base.json", pair_doc("H100-PCIE-80GB", "H100-PCIE-80GB", 0, 5, "", "50 GB/s"));
  const std::string path = dir.write("4.json", swap_doc("base.json", "H100-PCIE-80GB", "RTX-4090"));
  EXPECT_EQ(load_error(path),
            path +
                ": at /replace_models/H100-PCIE-80GB: gpu0-cpu0 (PCIe 5.0 x16) has its own "
                "bandwidth (50 GB/s), which cannot be re-derived for \"RTX-4090\" (PCIe 4.0); "
                "expected a model of the link's PCIe generation, or a machine file with its own "
                "links");
}

}  // namespace
}  // namespace linksim::topo
