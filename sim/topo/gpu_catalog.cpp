// The built-in GPU catalog. Every figure is a vendor peak from the cited public datasheet or
// whitepaper, stated the same way for every model:
//  - memory: the nominal capacity in GiB, as nvidia-smi counts it ("80GB" parts report about
//    80 GiB, e.g. 81920 MiB or 81559 MiB; a few hundred MiB go to the driver);
//  - hbm_bandwidth: the datasheet memory bandwidth (HBM or GDDR), decimal GB/s;
//  - peak_flops: DENSE tensor-core throughput where the GPU has tensor cores for that dtype
//    (datasheets print "with sparsity" figures twice as high; those are halved), otherwise the
//    CUDA-core rate. fp64 is the FP64 Tensor Core rate where one exists (A100, H100). For
//    GeForce cards fp16/bf16/tf32/fp8 are the "FP32 accumulate" rates (what cuBLAS uses for
//    training GEMMs), which are half the "FP16 accumulate" rates on those cards. Only dtypes
//    the datasheet lists are present.
//  - nvlink_links: NVLink links per GPU (bridges included: a GA102 has four x4 links).
//  - AMD Instinct: "tensor core" reads "matrix core"; the GPUs have no NVLink (0 links) and join
//    over Infinity Fabric, which a topology file draws as xgmi links between GPUs.

#include <string>
#include <utility>

#include "sim/topo/gpu_model.hpp"

namespace linksim::topo {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kGBps = 1e9;
constexpr double kT = 1e12;  // TFLOP/s (or TOPS for int8)

struct Flops {
  double fp64 = 0, fp32 = 0, tf32 = 0, fp16 = 0, bf16 = 0, fp8 = 0, int8 = 0;
};

GpuModel make(std::string name, std::string architecture, double memory_gib, double hbm_GBps,
              Flops f, int nvlink_generation, int nvlink_links, int pcie_generation, bool pcie_p2p,
              int sm_count, std::string source) {
  GpuModel m;
  m.name = std::move(name);
  m.architecture = std::move(architecture);
  m.memory_bytes = memory_gib * kGiB;
  m.hbm_bandwidth_Bps = hbm_GBps * kGBps;
  const auto put = [&m](const char* key, double tflops) {
    if (tflops > 0) m.peak_flops[key] = tflops * kT;
  };
  put("fp64", f.fp64);
  put("fp32", f.fp32);
  put("tf32", f.tf32);
  put("fp16", f.fp16);
  put("bf16", f.bf16);
  put("fp8", f.fp8);
  put("int8", f.int8);
  m.nvlink_generation = nvlink_generation;
  m.nvlink_links = nvlink_links;
  m.pcie_generation = pcie_generation;
  m.pcie_width = 16;
  m.pcie_p2p = pcie_p2p;
  m.sm_count = sm_count;
  m.source = std::move(source);
  return m;
}

// Maximum board power per model (datasheet TDP / "max power"), each with its source. A model
// whose vendor publishes none is left out (tdp_w 0): its energy is not reported rather than
// guessed. Data table: one row per model, read together; not split.
struct BoardPower {
  const char* model;
  double tdp_w;
  const char* source;
};
const BoardPower kBoardPower[] = {
    {"P100-SXM2-16GB", 300, "NVIDIA Tesla P100 datasheet: SXM2 max power 300 W"},
    {"V100-SXM2-16GB", 300, "NVIDIA Tesla V100 datasheet: SXM2 max power 300 W"},
    {"V100-SXM2-32GB", 300, "NVIDIA Tesla V100 datasheet: SXM2 max power 300 W"},
    {"T4", 70, "NVIDIA T4 datasheet: max power 70 W"},
    {"RTX-2080-Ti", 250,
     "NVIDIA GeForce RTX 2080 Ti specifications: graphics card power 250 W "
     "(Founders Edition 260 W)"},
    {"A100-SXM4-40GB", 400, "NVIDIA A100 datasheet: SXM max TDP 400 W"},
    {"A100-SXM4-80GB", 400, "NVIDIA A100 datasheet: SXM max TDP 400 W"},
    {"A100-PCIE-80GB", 300, "NVIDIA A100 datasheet: PCIe 80GB max TDP 300 W"},
    {"A10", 150, "NVIDIA A10 datasheet: max power 150 W"},
    {"A40", 300, "NVIDIA A40 datasheet: max power 300 W"},
    {"RTX-3090", 350, "NVIDIA GeForce RTX 3090 specifications: graphics card power 350 W"},
    {"RTX-4090", 450, "NVIDIA GeForce RTX 4090 specifications: total graphics power 450 W"},
    {"L40S", 350, "NVIDIA L40S datasheet: max power 350 W"},
    {"RTX-4070-Ti-SUPER", 285,
     "NVIDIA GeForce RTX 4070 Ti SUPER specifications: total graphics power 285 W"},
    {"L4", 72, "NVIDIA L4 datasheet: max power 72 W"},
    {"H100-SXM5-80GB", 700, "NVIDIA H100 datasheet: SXM max TDP up to 700 W"},
    {"H100-PCIE-80GB", 350, "NVIDIA H100 PCIe product brief PB-11133-001: TDP 350 W"},
    {"H200-SXM-141GB", 700, "NVIDIA H200 datasheet: SXM max TDP up to 700 W"},
    {"H800-SXM5-80GB", 700, "NVIDIA H800 datasheet: SXM max TDP up to 700 W"},
    {"H20", 400,
     "No public NVIDIA datasheet: 400 W as the HGX H20 specification was reported by "
     "SemiAnalysis and the trade press (Nov 2023); approximate"},
    {"MI300X", 750, "AMD Instinct MI300X datasheet: total board power 750 W"},
    {"B200", 1000, "NVIDIA HGX B200 datasheet: up to 1,000 W per GPU"},
    {"GB200", 1200,
     "No per-GPU datasheet figure (NVIDIA states rack power only): 1,200 W per "
     "Blackwell GPU of a GB200 superchip as reported by the trade press (2024); "
     "approximate"},
    {"RTX-5090", 575, "NVIDIA GeForce RTX 5090 specifications: total graphics power 575 W"},
    // Not listed: A10G (no public datasheet), GH200-96GB (the module's 450-1,000 W covers the
    // Grace CPU and its memory too, not the GPU alone).
};

// Data table, one add() per GPU model: one function so the rows read together; not split.
std::map<std::string, GpuModel> build_catalog() {
  std::map<std::string, GpuModel> c;
  const auto add = [&c](GpuModel m) {
    const std::string key = m.name;
    c.emplace(key, std::move(m));
  };

  // ---- Pascal / Volta -------------------------------------------------------------------
  add(make("P100-SXM2-16GB", "pascal", 16, 732, {.fp64 = 5.3, .fp32 = 10.6, .fp16 = 21.2}, 1, 4, 3,
           true, 56,
           "NVIDIA Tesla P100 datasheet (SXM2: 5.3/10.6/21.2 TFLOPS FP64/FP32/FP16, 16 GB CoWoS "
           "HBM2 at 732 GB/s, NVLink 160 GB/s bidirectional = 4 links x 20 GB/s per direction); "
           "Pascal GP100 whitepaper (56 SMs)"));
  const std::string v100_source =
      "NVIDIA Tesla V100 datasheet (SXM2: 7.8 TFLOPS FP64, 15.7 FP32, 125 Tensor (FP16), HBM2 "
      "900 GB/s, NVLink 300 GB/s bidirectional = 6 links x 25 GB/s per direction, PCIe 3.0 x16); "
      "Volta GV100 whitepaper (80 SMs)";
  add(make("V100-SXM2-16GB", "volta", 16, 900, {.fp64 = 7.8, .fp32 = 15.7, .fp16 = 125}, 2, 6, 3,
           true, 80, v100_source));
  add(make("V100-SXM2-32GB", "volta", 32, 900, {.fp64 = 7.8, .fp32 = 15.7, .fp16 = 125}, 2, 6, 3,
           true, 80, v100_source));

  // ---- Turing ---------------------------------------------------------------------------
  add(make("T4", "turing", 16, 320, {.fp32 = 8.1, .fp16 = 65, .int8 = 130}, 0, 0, 3, true, 40,
           "NVIDIA T4 datasheet (8.1 TFLOPS FP32, 65 TFLOPS mixed-precision FP16/FP32, 130 TOPS "
           "INT8, 16 GB GDDR6 at 320 GB/s, PCIe 3.0 x16; 40 SMs)"));
  add(make("RTX-2080-Ti", "turing", 11, 616, {.fp32 = 13.4, .fp16 = 53.8, .int8 = 215.2}, 2, 2, 3,
           false, 68,
           "NVIDIA Turing GPU architecture whitepaper, GeForce RTX 2080 Ti reference (68 SMs, "
           "13.4 TFLOPS FP32, FP16 Tensor 53.8 TFLOPS with FP32 accumulate (107.6 with FP16 "
           "accumulate), INT8 215.2 TOPS, 11 GB GDDR6 at 616 GB/s; TU102 has two x8 NVLink "
           "links, 25 GB/s per direction each). GeForce drivers do not enable PCIe P2P "
           "(nvidia-smi topo -p2p reports NS; see the 2x RTX 2080 Ti record in "
           "reference/measurements.md)"));

  // ---- Ampere ---------------------------------------------------------------------------
  const Flops a100{.fp64 = 19.5, .fp32 = 19.5, .tf32 = 156, .fp16 = 312, .bf16 = 312, .int8 = 624};
  add(make("A100-SXM4-40GB", "ampere", 40, 1555, a100, 3, 12, 4, true, 108,
           "NVIDIA A100 Tensor Core GPU datasheet (40GB SXM: HBM2 1,555 GB/s; FP64 Tensor 19.5, "
           "FP32 19.5, TF32 156, BF16/FP16 312 TFLOPS, INT8 624 TOPS dense; NVLink 600 GB/s "
           "bidirectional = 12 links); NVIDIA A100 (Ampere GA100) whitepaper (108 SMs)"));
  add(make("A100-SXM4-80GB", "ampere", 80, 2039, a100, 3, 12, 4, true, 108,
           "NVIDIA A100 80GB datasheet (SXM: HBM2e 2,039 GB/s; FP64 Tensor 19.5, FP32 19.5, "
           "TF32 156, BF16/FP16 312 TFLOPS, INT8 624 TOPS dense; NVLink 600 GB/s = 12 links); "
           "Ampere GA100 whitepaper (108 SMs)"));
  add(make("A100-PCIE-80GB", "ampere", 80, 1935, a100, 3, 12, 4, true, 108,
           "NVIDIA A100 80GB datasheet (PCIe: HBM2e 1,935 GB/s, same peak Tensor figures as SXM; "
           "NVLink Bridge for 2 GPUs: 600 GB/s bidirectional = 12 NVLink 3 links, shown as NV12 "
           "by nvidia-smi); Ampere GA100 whitepaper (108 SMs)"));
  add(make("A10", "ampere", 24, 600,
           {.fp32 = 31.2, .tf32 = 62.5, .fp16 = 125, .bf16 = 125, .int8 = 250}, 0, 0, 4, true, 72,
           "NVIDIA A10 Tensor Core GPU datasheet (FP32 31.2 TFLOPS, TF32 62.5, BF16/FP16 125 "
           "TFLOPS, INT8 250 TOPS dense (the datasheet's 125/250/500 with sparsity, halved), "
           "24 GB GDDR6 at 600 GB/s, PCIe 4.0 x16, 72 SMs)"));
  add(make("A10G", "ampere", 24, 600, {.fp32 = 35, .tf32 = 35, .fp16 = 70, .bf16 = 70, .int8 = 140},
           0, 0, 4, true, 80,
           "AWS-only variant of GA102 (EC2 G5); NVIDIA publishes no datasheet. Figures from "
           "Baseten, 'NVIDIA A10 vs A10G for ML model inference' (A10G: 35 TFLOPS FP32, 70 "
           "TFLOPS FP16/BF16 Tensor dense, 24 GB GDDR6 at 600 GB/s) and AWS G5 documentation "
           "(PCIe, no NVLink). SM count 80 (10,240 CUDA cores) is an unverified figure from "
           "third-party descriptions of the AWS part; treat the A10G figures as approximate"));
  add(make("A40", "ampere", 48, 696,
           {.fp32 = 37.4, .tf32 = 74.8, .fp16 = 149.7, .bf16 = 149.7, .int8 = 299.3}, 3, 4, 4, true,
           84,
           "NVIDIA A40 datasheet / product brief PB-09976-001 (84 SMs, FP32 37.4 TFLOPS, TF32 "
           "74.8, BF16/FP16 149.7 TFLOPS, INT8 299.3 TOPS dense, 48 GB GDDR6 at 696 GB/s, PCIe "
           "4.0 x16, NVLink bridge 112.5 GB/s bidirectional = four x4 NVLink 3 links at 14.0625 "
           "GB/s per direction: override bridge bandwidth in the topology)"));
  add(make("RTX-3090", "ampere", 24, 936,
           {.fp32 = 35.6, .tf32 = 35.6, .fp16 = 71, .bf16 = 71, .int8 = 284}, 3, 4, 4, false, 82,
           "NVIDIA Ampere GA102 GPU architecture whitepaper, GeForce RTX 3090 (82 SMs, 35.6 "
           "TFLOPS FP32, TF32 Tensor 35.6, FP16/BF16 Tensor 71 TFLOPS with FP32 accumulate (142 "
           "with FP16 accumulate), INT8 284 TOPS, 24 GB GDDR6X at 936 GB/s, PCIe 4.0 x16; NVLink "
           "bridge: four x4 links, 14.0625 GB/s per link per direction = 56.25 GB/s). GeForce "
           "drivers do not enable PCIe P2P"));

  // ---- Ada ------------------------------------------------------------------------------
  add(make("RTX-4090", "ada", 24, 1008,
           {.fp32 = 82.6, .tf32 = 82.6, .fp16 = 165.2, .bf16 = 165.2, .fp8 = 330.3, .int8 = 660.6},
           0, 0, 4, false, 128,
           "NVIDIA Ada Lovelace GPU architecture whitepaper, GeForce RTX 4090 (128 SMs, 82.6 "
           "TFLOPS FP32, TF32 Tensor 82.6, FP16/BF16 Tensor 165.2 TFLOPS and FP8 330.3 with FP32 "
           "accumulate, INT8 660.6 TOPS dense, 24 GB GDDR6X at 1,008 GB/s, PCIe 4.0 x16, no "
           "NVLink). GeForce drivers do not enable PCIe P2P (the seed: 'why are multi-4090 "
           "setups slow')"));
  add(make("L40S", "ada", 48, 864,
           {.fp32 = 91.6, .tf32 = 183, .fp16 = 362.05, .bf16 = 362.05, .fp8 = 733, .int8 = 733}, 0,
           0, 4, true, 142,
           "NVIDIA L40S datasheet (142 SMs, FP32 91.6 TFLOPS, TF32 183, BF16/FP16 362.05 "
           "TFLOPS, FP8 733 TFLOPS, INT8 733 TOPS dense (datasheet sparse figures halved), 48 GB "
           "GDDR6 at 864 GB/s, PCIe 4.0 x16, no NVLink)"));

  add(make("RTX-4070-Ti-SUPER", "ada", 16, 672,
           {.fp32 = 44.1, .tf32 = 44.1, .fp16 = 88.2, .bf16 = 88.2, .fp8 = 176.4, .int8 = 352.8}, 0,
           0, 4, false, 66,
           "NVIDIA GeForce RTX 4070 Ti SUPER product page (AD103, 8,448 CUDA cores = 66 SMs, "
           "2.61 GHz boost, 706 AI TOPS = FP8 with sparsity, 16 GB GDDR6X at 21 Gbps on 256 "
           "bits = 672 GB/s, PCIe 4.0 x16, no NVLink). NVIDIA prints no per-dtype table for this "
           "card: the rates are the RTX 4090's per-SM-per-clock rates from the Ada whitepaper "
           "times 66 SMs x 2.61 GHz (FP32 and TF32 256, FP16/BF16 512 and FP8 1,024 with FP32 "
           "accumulate, INT8 2,048 ops per SM per clock: 44.1, 88.2, 176.4, 352.8), which "
           "matches 706 AI TOPS / 2 = 353 TOPS INT8 dense. GeForce drivers do not enable PCIe "
           "P2P"));
  add(make("L4", "ada", 24, 300,
           {.fp32 = 30.3, .tf32 = 60, .fp16 = 121, .bf16 = 121, .fp8 = 242.5, .int8 = 242.5}, 0, 0,
           4, true, 58,
           "NVIDIA L4 Tensor Core GPU datasheet (FP32 30.3 TFLOPS; TF32 120, FP16/BF16 242, FP8 "
           "485 TFLOPS and INT8 485 TOPS with sparsity, halved here; 24 GB GDDR6 at 300 GB/s; "
           "PCIe 4.0 x16, no NVLink; 72 W); 7,424 CUDA cores = 58 SMs of AD104"));

  // ---- Hopper ---------------------------------------------------------------------------
  const Flops h100_sxm{.fp64 = 67,
                       .fp32 = 67,
                       .tf32 = 494.7,
                       .fp16 = 989.4,
                       .bf16 = 989.4,
                       .fp8 = 1978.9,
                       .int8 = 1978.9};
  add(make("H100-SXM5-80GB", "hopper", 80, 3350, h100_sxm, 4, 18, 5, true, 132,
           "NVIDIA H100 Tensor Core GPU datasheet (SXM: FP64 Tensor 67, FP32 67, TF32 494.7, "
           "BF16/FP16 989.4, FP8 1,978.9 TFLOPS, INT8 1,978.9 TOPS dense (datasheet sparse "
           "figures halved), HBM3 3.35 TB/s, NVLink 900 GB/s bidirectional = 18 NVLink 4 links, "
           "PCIe 5.0 x16); NVIDIA H100 (Hopper) whitepaper (132 SMs on SXM5)"));
  add(make(
      "H100-PCIE-80GB", "hopper", 80, 2000,
      {.fp64 = 51, .fp32 = 51, .tf32 = 378, .fp16 = 756, .bf16 = 756, .fp8 = 1513, .int8 = 1513}, 4,
      12, 5, true, 114,
      "NVIDIA H100 Tensor Core GPU datasheet (PCIe: FP64 Tensor 51, FP32 51, TF32 378, "
      "BF16/FP16 756, FP8 1,513 TFLOPS, INT8 1,513 TOPS dense, HBM2e 2 TB/s, NVLink bridge "
      "600 GB/s bidirectional = 12 NVLink 4 links, PCIe 5.0 x16); Hopper whitepaper (114 "
      "SMs on H100 PCIe)"));
  add(make("H200-SXM-141GB", "hopper", 141, 4800, h100_sxm, 4, 18, 5, true, 132,
           "NVIDIA H200 Tensor Core GPU datasheet (SXM: 141 GB HBM3e at 4.8 TB/s; same compute "
           "as H100 SXM: FP64 Tensor 67, TF32 494.7, BF16/FP16 989.4, FP8 1,978.9 TFLOPS dense; "
           "NVLink 900 GB/s bidirectional = 18 NVLink 4 links; PCIe 5.0 x16; 132 SMs). nvidia-smi "
           "reports 143771 MiB (~140.4 GiB)"));

  add(make("H800-SXM5-80GB", "hopper", 80, 3350,
           {.fp64 = 1,
            .fp32 = 67,
            .tf32 = 494.7,
            .fp16 = 989.4,
            .bf16 = 989.4,
            .fp8 = 1978.9,
            .int8 = 1978.9},
           4, 8, 5, true, 132,
           "NVIDIA H800 Tensor Core GPU datasheet (SXM: FP64 and FP64 Tensor 1 TFLOPS, FP32 67, "
           "TF32 989, BF16/FP16 1,979, FP8 3,958 TFLOPS, INT8 3,958 TOPS with sparsity (halved "
           "here: the H100 SXM's dense figures), 80 GB HBM3 at 3.35 TB/s, NVLink 400 GB/s "
           "bidirectional = 8 NVLink 4 links at 25 GB/s per direction, PCIe 5.0 x16); the "
           "export variant of the H100 SXM5 (132 SMs)"));
  add(make("H20", "hopper", 96, 4000,
           {.fp64 = 1, .fp32 = 44, .tf32 = 74, .fp16 = 148, .bf16 = 148, .fp8 = 296, .int8 = 296},
           4, 18, 5, true, 0,
           "NVIDIA publishes no public H20 datasheet; figures from the HGX H20 specification as "
           "reported by SemiAnalysis and the trade press (Nov 2023): FP64 1, FP32 44, TF32 74, "
           "BF16/FP16 148, FP8 296 TFLOPS and INT8 296 TOPS dense, 96 GB HBM3 at 4.0 TB/s, "
           "NVLink 900 GB/s bidirectional = 18 NVLink 4 links, PCIe 5.0 x16 (128 GB/s), 400 W. "
           "SM count not published (0). Treat as approximate"));
  add(make("GH200-96GB", "hopper", 96, 4000, h100_sxm, 4, 18, 5, true, 132,
           "NVIDIA GH200 Grace Hopper Superchip datasheet (GPU: FP64 Tensor 67, FP32 67, TF32 "
           "494, BF16/FP16 990, FP8 1,979 TFLOPS, INT8 1,979 TOPS dense (sparse figures "
           "halved), 96 GB HBM3 at 4 TB/s; NVLink-C2C to the Grace CPU 900 GB/s bidirectional; "
           "18 NVLink 4 links (900 GB/s) to other superchips; PCIe 5.0 lanes come from Grace; "
           "132 SMs as on H100 SXM5). The 144 GB HBM3e version (4.9 TB/s) is not listed: define "
           "it under gpu_models"));

  // ---- AMD CDNA 3 -----------------------------------------------------------------------
  // sm_count holds compute units; nvlink 0: the GPUs join over Infinity Fabric (xgmi links).
  add(make("MI300X", "cdna3", 192, 5300,
           {.fp64 = 163.4,
            .fp32 = 163.4,
            .tf32 = 653.7,
            .fp16 = 1307.4,
            .bf16 = 1307.4,
            .fp8 = 2614.9,
            .int8 = 2614.9},
           0, 0, 5, true, 304,
           "AMD Instinct MI300X accelerator datasheet (304 compute units; peak FP64 matrix 163.4, "
           "FP32 163.4, TF32 653.7, FP16/BF16 1,307.4, FP8 2,614.9 TFLOPS, INT8 2,614.9 TOPS "
           "dense (with sparsity twice that); 192 GB HBM3 at 5.3 TB/s; PCIe 5.0 x16 to the host; "
           "Infinity Fabric: 7 links to peer GPUs at 128 GB/s bidirectional each (896 GB/s "
           "aggregate) on the 8-GPU platform)"));

  // ---- Blackwell ------------------------------------------------------------------------
  add(make(
      "B200", "blackwell", 180, 8000,
      {.fp64 = 37, .fp32 = 75, .tf32 = 1100, .fp16 = 2250, .bf16 = 2250, .fp8 = 4500, .int8 = 4500},
      5, 18, 5, true, 148,
      "NVIDIA HGX B200 / DGX B200 datasheets, per GPU = 8-GPU figures / 8 and sparse "
      "figures halved (FP64 37, FP32 75, TF32 1,100 (1.125 PF), FP16/BF16 2,250, FP8 4,500 "
      "TFLOPS, INT8 4,500 TOPS dense; 180 GB HBM3e at 8 TB/s (DGX B200: 1,440 GB total); "
      "NVLink 5: 18 links, 1.8 TB/s bidirectional); 148 SMs per public Blackwell "
      "descriptions; host PCIe Gen5 x16 on HGX B200 (the GPU supports Gen6)"));
  add(make(
      "GB200", "blackwell", 186, 8000,
      {.fp64 = 40, .fp32 = 80, .tf32 = 1250, .fp16 = 2500, .bf16 = 2500, .fp8 = 5000, .int8 = 5000},
      5, 18, 5, true, 148,
      "NVIDIA GB200 NVL72 datasheet, per GPU = GB200 superchip figures / 2 (one Grace, two "
      "Blackwell GPUs) and sparse figures halved: superchip FP64 80, FP32 160, TF32 5 PF, "
      "FP16/BF16 10 PF, FP8 20 PF, INT8 20 POPS (sparse), up to 372 GB HBM3e at 16 TB/s, "
      "NVLink 3.6 TB/s; per GPU FP64 40, FP32 80, TF32 1,250, FP16/BF16 2,500, FP8 5,000 "
      "TFLOPS, INT8 5,000 TOPS dense, 186 GB at 8 TB/s, NVLink 5: 18 links, 1.8 TB/s "
      "bidirectional. Each GPU reaches its Grace CPU over NVLink-C2C (900 GB/s "
      "bidirectional), not PCIe. Earlier datasheet revisions print FP64 90 and 384 GB per "
      "superchip; 148 SMs as for B200"));
  add(make("RTX-5090", "blackwell", 32, 1792,
           {.fp32 = 104.8, .tf32 = 104.8, .fp16 = 209.5, .bf16 = 209.5, .fp8 = 419, .int8 = 838}, 0,
           0, 5, false, 170,
           "NVIDIA GeForce RTX 5090 product page and RTX Blackwell GPU architecture whitepaper "
           "(170 SMs, 21,760 CUDA cores at 2.407 GHz boost: 104.8 TFLOPS FP32; 3,352 AI TOPS = "
           "FP4 with sparsity, so FP8 838 and FP16 419 TFLOPS dense with FP16 accumulate; 32 GB "
           "GDDR7 at 28 Gbps on 512 bits = 1,792 GB/s; PCIe 5.0 x16, no NVLink). FP16/BF16/"
           "FP8/TF32 here are the FP32-accumulate rates, half the FP16-accumulate ones as on "
           "every GeForce card in this catalog; INT8 838 TOPS dense. GeForce drivers do not "
           "enable PCIe P2P"));
  for (const BoardPower& p : kBoardPower) {
    GpuModel& m = c.at(p.model);
    m.tdp_w = p.tdp_w;
    m.tdp_source = p.source;
  }
  return c;
}

}  // namespace

const std::map<std::string, GpuModel>& gpu_catalog() {
  static const std::map<std::string, GpuModel> catalog = build_catalog();
  return catalog;
}

std::optional<GpuModel> find_gpu_model(const std::string& name) {
  const auto& c = gpu_catalog();
  const auto it = c.find(name);
  if (it == c.end()) return std::nullopt;
  return it->second;
}

std::vector<std::string> gpu_model_names() {
  std::vector<std::string> names;
  for (const auto& [name, model] : gpu_catalog())
    names.push_back(name);
  return names;
}

}  // namespace linksim::topo
