// The catalog's models of today's GPUs: every figure as the cited datasheet prints it, with the
// arithmetic where the entry derives one (per GPU from a system figure, dense from sparse).
#include <gtest/gtest.h>

#include <string>

#include "sim/core/error.hpp"
#include "sim/topo/gpu_model.hpp"
#include "sim/topo/smi_matrix.hpp"
#include "sim/topo/smi_matrix_import.hpp"
#include "sim/topo/smi_matrix_parse.hpp"
#include "tests/support/temp_files.hpp"

namespace linksim::topo {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

GpuModel model(const std::string& name) {
  const auto m = find_gpu_model(name);
  EXPECT_TRUE(m.has_value()) << name;
  return m.value_or(GpuModel{});
}

double tflops(const GpuModel& m, const std::string& dtype) {
  const auto it = m.peak_flops.find(dtype);
  return it == m.peak_flops.end() ? 0 : it->second / 1e12;
}

TEST(GpuCatalogTest, B200IsNvlink5WithEighteenLinks) {
  const GpuModel m = model("B200");
  EXPECT_EQ(m.architecture, "blackwell");
  EXPECT_DOUBLE_EQ(m.memory_bytes, 180 * kGiB);  // DGX B200: 1,440 GB / 8 GPUs = 180
  EXPECT_DOUBLE_EQ(m.hbm_bandwidth_Bps, 8e12);
  // HGX B200, 8 GPUs: FP8 72 PF sparse -> 72 / 8 / 2 = 4.5 PF dense; BF16 36 / 8 / 2 = 2.25.
  EXPECT_DOUBLE_EQ(tflops(m, "fp8"), 4500);
  EXPECT_DOUBLE_EQ(tflops(m, "bf16"), 2250);
  EXPECT_EQ(m.nvlink_generation, 5);
  EXPECT_EQ(m.nvlink_links, 18);  // 1.8 TB/s bidirectional = 18 x 2 x 50 GB/s
  EXPECT_EQ(m.pcie_generation, 5);
  EXPECT_TRUE(m.pcie_p2p);
}

TEST(GpuCatalogTest, Gb200IsHalfASuperchipWithDenseRates) {
  const GpuModel m = model("GB200");
  EXPECT_EQ(m.architecture, "blackwell");
  // Superchip (1 Grace + 2 GPUs): 372 GB HBM3e at 16 TB/s -> 186 GB and 8 TB/s per GPU.
  EXPECT_DOUBLE_EQ(m.memory_bytes, 186 * kGiB);
  EXPECT_DOUBLE_EQ(m.hbm_bandwidth_Bps, 8e12);
  // Sparse superchip figures / 2 GPUs / 2: TF32 5 PF -> 1.25, BF16 10 -> 2.5, FP8 20 -> 5 PF.
  EXPECT_DOUBLE_EQ(tflops(m, "tf32"), 1250);
  EXPECT_DOUBLE_EQ(tflops(m, "fp16"), 2500);
  EXPECT_DOUBLE_EQ(tflops(m, "bf16"), 2500);
  EXPECT_DOUBLE_EQ(tflops(m, "fp8"), 5000);
  EXPECT_DOUBLE_EQ(tflops(m, "int8"), 5000);
  // Dense already: FP32 160 / 2 = 80, FP64 80 / 2 = 40.
  EXPECT_DOUBLE_EQ(tflops(m, "fp32"), 80);
  EXPECT_DOUBLE_EQ(tflops(m, "fp64"), 40);
  EXPECT_EQ(m.nvlink_generation, 5);
  EXPECT_EQ(m.nvlink_links, 18);  // NVLink 3.6 TB/s per superchip / 2 = 1.8 TB/s = 18 links
}

TEST(GpuCatalogTest, Rtx5090IsPcie5GeforceWithoutNvlinkOrP2p) {
  const GpuModel m = model("RTX-5090");
  EXPECT_EQ(m.architecture, "blackwell");
  EXPECT_DOUBLE_EQ(m.memory_bytes, 32 * kGiB);
  EXPECT_DOUBLE_EQ(m.hbm_bandwidth_Bps, 1792e9);  // 28 Gb/s x 512 bits / 8 = 1,792 GB/s
  EXPECT_DOUBLE_EQ(tflops(m, "fp32"), 104.8);     // 21,760 cores x 2 x 2.407 GHz = 104.75
  // 3,352 AI TOPS = FP4 sparse; FP8 dense (FP16 accumulate) = 3,352 / 2 / 2 = 838; INT8 dense
  // = 838; FP32 accumulate halves it: FP8 419, FP16 838 / 2 / 2 = 209.5.
  EXPECT_DOUBLE_EQ(tflops(m, "int8"), 838);
  EXPECT_DOUBLE_EQ(tflops(m, "fp8"), 419);
  EXPECT_DOUBLE_EQ(tflops(m, "bf16"), 209.5);
  EXPECT_DOUBLE_EQ(tflops(m, "fp16"), 209.5);
  EXPECT_EQ(m.nvlink_generation, 0);
  EXPECT_EQ(m.nvlink_links, 0);
  EXPECT_EQ(m.pcie_generation, 5);
  EXPECT_FALSE(m.pcie_p2p);
  EXPECT_EQ(m.sm_count, 170);
}

TEST(GpuCatalogTest, Rtx4070TiSuperIsTheAda4090PerSmRateOnSixtySixSms) {
  const GpuModel m = model("RTX-4070-Ti-SUPER");
  EXPECT_EQ(m.architecture, "ada");
  EXPECT_DOUBLE_EQ(m.memory_bytes, 16 * kGiB);
  EXPECT_DOUBLE_EQ(m.hbm_bandwidth_Bps, 672e9);  // 21 Gb/s x 256 bits / 8 = 672 GB/s
  // 66 SMs x 2.61 GHz = 172.26 G SM-clocks/s; x 256 = 44.1 (FP32, TF32), x 512 = 88.2
  // (FP16/BF16, FP32 accumulate), x 1,024 = 176.4 (FP8), x 2,048 = 352.8 TOPS (INT8, which is
  // 706 AI TOPS / 2 = 353 to rounding).
  EXPECT_DOUBLE_EQ(tflops(m, "fp32"), 44.1);
  EXPECT_DOUBLE_EQ(tflops(m, "tf32"), 44.1);
  EXPECT_DOUBLE_EQ(tflops(m, "bf16"), 88.2);
  EXPECT_DOUBLE_EQ(tflops(m, "fp8"), 176.4);
  EXPECT_DOUBLE_EQ(tflops(m, "int8"), 352.8);
  EXPECT_EQ(m.nvlink_links, 0);
  EXPECT_EQ(m.pcie_generation, 4);
  EXPECT_FALSE(m.pcie_p2p);
  EXPECT_EQ(m.sm_count, 66);  // 8,448 CUDA cores / 128 per SM
}

TEST(GpuCatalogTest, H800IsAnH100WithEightNvlinksAndOneTflopFp64) {
  const GpuModel m = model("H800-SXM5-80GB");
  const GpuModel h100 = model("H100-SXM5-80GB");
  EXPECT_EQ(m.nvlink_generation, 4);
  EXPECT_EQ(m.nvlink_links, 8);  // 400 GB/s bidirectional = 8 x 2 x 25 GB/s
  EXPECT_DOUBLE_EQ(tflops(m, "fp64"), 1);
  // Datasheet BF16 1,979 sparse / 2 = 989.4 dense: the H100 SXM's.
  EXPECT_DOUBLE_EQ(tflops(m, "bf16"), 989.4);
  EXPECT_DOUBLE_EQ(tflops(m, "fp8"), tflops(h100, "fp8"));
  EXPECT_DOUBLE_EQ(m.memory_bytes, 80 * kGiB);
  EXPECT_DOUBLE_EQ(m.hbm_bandwidth_Bps, 3.35e12);
}

TEST(GpuCatalogTest, H20KeepsFullNvlinkAndHbmButLittleCompute) {
  const GpuModel m = model("H20");
  EXPECT_DOUBLE_EQ(m.memory_bytes, 96 * kGiB);
  EXPECT_DOUBLE_EQ(m.hbm_bandwidth_Bps, 4e12);
  EXPECT_DOUBLE_EQ(tflops(m, "bf16"), 148);
  EXPECT_DOUBLE_EQ(tflops(m, "fp8"), 296);
  EXPECT_DOUBLE_EQ(tflops(m, "tf32"), 74);
  EXPECT_DOUBLE_EQ(tflops(m, "fp32"), 44);
  EXPECT_DOUBLE_EQ(tflops(m, "fp64"), 1);
  EXPECT_EQ(m.nvlink_generation, 4);
  EXPECT_EQ(m.nvlink_links, 18);  // 900 GB/s bidirectional = 18 x 2 x 25 GB/s
  EXPECT_EQ(m.sm_count, 0);       // not published
}

TEST(GpuCatalogTest, L4IsAPcie4InferenceCardWithDenseRates) {
  const GpuModel m = model("L4");
  EXPECT_DOUBLE_EQ(m.memory_bytes, 24 * kGiB);
  EXPECT_DOUBLE_EQ(m.hbm_bandwidth_Bps, 300e9);
  // Datasheet sparse figures halved: TF32 120 -> 60, FP16 242 -> 121, FP8 485 -> 242.5.
  EXPECT_DOUBLE_EQ(tflops(m, "tf32"), 60);
  EXPECT_DOUBLE_EQ(tflops(m, "fp16"), 121);
  EXPECT_DOUBLE_EQ(tflops(m, "fp8"), 242.5);
  EXPECT_DOUBLE_EQ(tflops(m, "int8"), 242.5);
  EXPECT_DOUBLE_EQ(tflops(m, "fp32"), 30.3);
  EXPECT_EQ(m.nvlink_links, 0);
  EXPECT_EQ(m.pcie_generation, 4);
  EXPECT_TRUE(m.pcie_p2p);
  EXPECT_EQ(m.sm_count, 58);  // 7,424 CUDA cores / 128 per SM
}

TEST(GpuCatalogTest, Gh200IsAnH100ClassGpuWith96GbHbm3) {
  const GpuModel m = model("GH200-96GB");
  EXPECT_EQ(m.architecture, "hopper");
  EXPECT_DOUBLE_EQ(m.memory_bytes, 96 * kGiB);
  EXPECT_DOUBLE_EQ(m.hbm_bandwidth_Bps, 4e12);
  EXPECT_DOUBLE_EQ(tflops(m, "bf16"), 989.4);  // datasheet 1,979 sparse / 2
  EXPECT_DOUBLE_EQ(tflops(m, "fp64"), 67);     // FP64 Tensor Core
  EXPECT_EQ(m.nvlink_generation, 4);
  EXPECT_EQ(m.nvlink_links, 18);
}

TEST(GpuCatalogTest, Mi300xIsACdna3GpuWithoutNvlink) {
  const GpuModel m = model("MI300X");
  EXPECT_EQ(m.architecture, "cdna3");
  EXPECT_DOUBLE_EQ(m.memory_bytes, 192 * kGiB);
  EXPECT_DOUBLE_EQ(m.hbm_bandwidth_Bps, 5.3e12);
  // AMD's dense peaks (sparse ones are twice these): FP16/BF16 1,307.4, FP8 2,614.9, TF32
  // 653.7, FP64 matrix 163.4 = FP32 163.4.
  EXPECT_DOUBLE_EQ(tflops(m, "fp16"), 1307.4);
  EXPECT_DOUBLE_EQ(tflops(m, "bf16"), 1307.4);
  EXPECT_DOUBLE_EQ(tflops(m, "fp8"), 2614.9);
  EXPECT_DOUBLE_EQ(tflops(m, "int8"), 2614.9);
  EXPECT_DOUBLE_EQ(tflops(m, "tf32"), 653.7);
  EXPECT_DOUBLE_EQ(tflops(m, "fp64"), 163.4);
  EXPECT_EQ(m.nvlink_generation, 0);  // the mesh is Infinity Fabric: xgmi links in a topology
  EXPECT_EQ(m.pcie_generation, 5);
  EXPECT_TRUE(m.pcie_p2p);
  EXPECT_EQ(m.sm_count, 304);  // compute units
}

TEST(GpuCatalogTest, EveryEntryCitesASourceAndHasMemoryAndBf16OrFp16) {
  for (const auto& [name, m] : gpu_catalog()) {
    EXPECT_EQ(name, m.name);
    EXPECT_FALSE(m.source.empty()) << name;
    EXPECT_GT(m.memory_bytes, 0) << name;
    EXPECT_GT(m.hbm_bandwidth_Bps, 0) << name;
    EXPECT_GT(tflops(m, "fp16"), 0) << name;
  }
}

TEST(GpuCatalogTest, TheFormatDocsListEveryModel) {
  const std::string docs =
      linksim::testing::read_file(linksim::testing::source_dir() + "/docs/topology-format.md");
  for (const auto& name : gpu_model_names()) {
    // A row of the models table starts with the name, or lists it after another one.
    bool listed = false;
    for (const char* before : {"\n| ", ", "}) {
      for (const char* after : {" ", ","})
        listed = listed || docs.find(before + name + after) != std::string::npos;
    }
    EXPECT_TRUE(listed) << name;
  }
}

TEST(GpuCatalogTest, TopoImportListsTheNewGpus) {
  // `linksim topo import --gpu` refuses an unknown model with the catalog's names.
  const SmiMatrix m = parse_smi_printout("        GPU0\nGPU0     X\n", "p.txt");
  SmiImportOptions options;
  options.gpu_model = "no-such-gpu";
  options.source = "p.txt";
  try {
    import_smi(m, options);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    const std::string what = e.what();
    for (const char* name : {"B200", "GB200", "RTX-5090", "RTX-4070-Ti-SUPER", "H800-SXM5-80GB",
                             "H20", "L4", "GH200-96GB", "MI300X"}) {
      EXPECT_NE(what.find(std::string(" ") + name + ","), std::string::npos) << name;
    }
  }
}

}  // namespace
}  // namespace linksim::topo
