// NVLink discovery for `linksim calibrate` from `nvidia-smi topo -m` (issue #6): the skeleton
// machine gets the NVLinks the printout shows, and none when it is missing or disagrees.
#include "calibrate/node_skeleton.hpp"

#include <gtest/gtest.h>

#include "calibrate/smi_discovery.hpp"
#include "calibrate/text_lines.hpp"
#include "sim/topo/loader.hpp"
#include "sim/topo/routing.hpp"
#include "sim/topo/smi_matrix_format.hpp"
#include "sim/topo/smi_matrix_parse.hpp"
#include "tests/support/temp_files.hpp"

namespace linksim::calibrate {
namespace {

SkeletonInputs devices(int count, int major, int minor, const std::string& name) {
  SkeletonInputs in;
  for (int i = 0; i < count; ++i) {
    DeviceInfo d;
    d.index = i;
    d.name = name;
    d.memory_bytes = 80.0 * 1024 * 1024 * 1024;
    d.sm_count = 108;
    d.compute_major = major;
    d.compute_minor = minor;
    d.numa_node = i < count / 2 ? 0 : 1;
    d.pcie_gt_per_s = 16;
    d.pcie_width = 16;
    in.devices.push_back(d);
  }
  return in;
}

topo::SmiMatrix printout(const std::string& file) {
  const std::string path = testing::source_dir() + "/tests/data/smi/" + file;
  return topo::parse_smi_printout(read_text_file(path), path);
}

TEST(NodeSkeleton, NvlinkGenerationByComputeCapability) {
  EXPECT_EQ(nvlink_generation_for(8, 0).generation, 3);
  EXPECT_EQ(nvlink_generation_for(8, 0).links_per_gpu, 12);
  EXPECT_EQ(nvlink_generation_for(9, 0).generation, 4);
  EXPECT_EQ(nvlink_generation_for(9, 0).links_per_gpu, 18);
  EXPECT_EQ(nvlink_generation_for(8, 9).generation, 0);  // Ada (RTX 4090): no NVLink
}

// The simulated DGX A100's own printout (every pair NV12): 12 x 7 = 84 links would exceed the
// A100's 12, so the skeleton gets one NVSwitch plane with 12 NVLink 3 links per GPU.
TEST(NodeSkeleton, AnAllNvMatrixBecomesAnNvswitchPlane) {
  const topo::Topology dgx = topo::load_topology("dgx-a100");
  const topo::Router router(dgx);
  SkeletonInputs in = devices(8, 8, 0, "NVIDIA A100-SXM4-80GB");
  in.smi = topo::parse_smi_printout(topo::format_smi_matrix(topo::smi_matrix(dgx, router)),
                                    "dgx-a100 (simulated)");
  const topo::Topology t = topo::parse_topology(node_skeleton(in), "node.json");
  ASSERT_TRUE(t.find("nvswitch").has_value());
  const topo::Router skeleton_router(t);
  const auto r = skeleton_router.route(*t.find("gpu0"), *t.find("gpu5"));
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->transport, topo::Transport::nvlink);
  EXPECT_EQ(skeleton_router.nvlink_count(*t.find("gpu0"), *t.find("gpu5")), 12);
  // NVLink 3: 25 GB/s per link per direction x 12 = 300 GB/s.
  EXPECT_DOUBLE_EQ(r->bandwidth_Bps(), 300e9);
}

// 4x RTX 3090 with NVLink bridges in pairs (GA102, compute 8.6): GPU0-GPU2 and GPU1-GPU3 are NV4.
TEST(NodeSkeleton, NvPairsBecomePointToPointBundles) {
  SkeletonInputs in = devices(4, 8, 6, "NVIDIA GeForce RTX 3090");
  in.smi = printout("rtx3090-4x-nvlink-pairs.txt");
  const topo::Topology t = topo::parse_topology(node_skeleton(in), "node.json");
  const topo::Router router(t);
  EXPECT_EQ(router.nvlink_count(*t.find("gpu0"), *t.find("gpu2")), 4);
  EXPECT_EQ(router.route(*t.find("gpu0"), *t.find("gpu2"))->transport, topo::Transport::nvlink);
  EXPECT_NE(router.route(*t.find("gpu0"), *t.find("gpu1"))->transport, topo::Transport::nvlink);
}

TEST(NodeSkeleton, DiscoveryReadsASavedPrintout) {
  const std::string path = testing::source_dir() + "/tests/data/smi/rtx3090-4x-nvlink-pairs.txt";
  const SmiDiscovery d = discover_smi_matrix(path);
  ASSERT_TRUE(d.matrix.has_value());
  EXPECT_EQ(d.matrix->columns.size(), 4u);  // GPU0..GPU3
  EXPECT_EQ(d.note, "");
}

TEST(NodeSkeleton, NoPrintoutOrADisagreeingOneGivesNoNvlink) {
  SkeletonInputs in = devices(2, 8, 0, "NVIDIA A100-SXM4-80GB");
  Json doc = node_skeleton(in);
  EXPECT_NE(doc["notes"][0].get<std::string>().find("nvidia-smi topo -m was not available"),
            std::string::npos);
  in.smi = printout("rtx3090-4x-nvlink-pairs.txt");  // 4 GPUs where CUDA sees 2
  doc = node_skeleton(in);
  EXPECT_EQ(doc["notes"][0],
            "nvidia-smi topo -m shows 4 GPUs where CUDA shows 2: NVLinks not taken from it.");
  for (const auto& link : doc["links"])
    EXPECT_NE(link["kind"], "nvlink");
}

}  // namespace
}  // namespace linksim::calibrate
