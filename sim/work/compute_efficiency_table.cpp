#include "sim/work/compute_efficiency_table.hpp"

namespace linksim::work {

// Data table: one row per architecture, read together; not split. Columns: GEMM, attention
// forward, attention backward, HBM, FP8 GEMM. Fractions are rounded to 0.05 from the cited public
// figures; a row whose source gives no backward figure repeats the forward's. None is fitted to
// any training-throughput measurement; the three sources issue 33 reserves for independent
// checking are not used.
const std::vector<ArchitectureEfficiency>& compute_efficiency_table() {
  static const std::vector<ArchitectureEfficiency> table = {
      {"pascal", 0.80, 0.50, 0.50, 0.75, 0,
       "No tensor cores: cuBLAS SGEMM/HGEMM on CUDA cores reaches about 80-90% of peak (NVIDIA "
       "GTC 2019 S9926 'Tensor Core DL performance guide', P100 baseline); P100 STREAM about "
       "550 of 732 GB/s (Deakin et al., 'Evaluating attainable memory bandwidth of parallel "
       "programming models via BabelStream', IJCSE 2018). No FlashAttention on Pascal: the "
       "attention row is only used when a scenario forces it. No FP8 tensor cores (FP8 fraction "
       "0)"},
      {"volta", 0.80, 0.50, 0.50, 0.85, 0,
       "V100: cuBLAS FP16 tensor-core GEMM about 100 of 125 TFLOPS for large square sizes "
       "(NVIDIA GTC 2019 S9926 'Tensor Core DL performance guide'); BabelStream about 800 of "
       "900 GB/s (Deakin et al., IJCSE 2018). FlashAttention-2 does not support Volta: the "
       "attention row is only used when a scenario forces it. No FP8 tensor cores (FP8 fraction "
       "0)"},
      {"turing", 0.70, 0.50, 0.50, 0.85, 0,
       "Turing: T4 holds its 70 W limit by lowering clocks, so large FP16 GEMMs reach about "
       "70% of the 65 TFLOPS peak (NVIDIA T4 datasheet and 'Matrix Multiplication Background "
       "User's Guide', DU-09799-001, Fig. 'GEMM performance'); GDDR6 streaming about 85% of "
       "the datasheet bandwidth (BabelStream, Deakin et al. 2018 method). No FP8 tensor cores (FP8 "
       "fraction 0)"},
      {"ampere", 0.80, 0.70, 0.70, 0.90, 0,
       "A100: cuBLAS 11 BF16/FP16 GEMMs of 4096^3 and larger reach about 250 of 312 TFLOPS "
       "(NVIDIA 'Matrix Multiplication Background User's Guide', DU-09799-001, Feb 2023, "
       "Figs. 2-3); FlashAttention-2 forward 50-73% of A100 peak, 'up to 230 TFLOPs/s' (Dao, "
       "'FlashAttention-2', arXiv:2307.08691, Sec. 4.1), 0.70 taken; BabelStream/STREAM on "
       "A100 about 90% of HBM2e bandwidth (NVIDIA A100 whitepaper memory section; Deakin et "
       "al. 2018 method). No FP8 tensor cores (FP8 fraction 0; NVIDIA A100 Tensor Core GPU "
       "Architecture whitepaper: FP16, BF16, TF32, INT8, INT4)"},
      {"ada", 0.80, 0.70, 0.70, 0.90, 0.80,
       "Ada (RTX 4090, L40S, L4): GeForce and L-series rates in gpu_catalog.cpp are already "
       "the FP32-accumulate tensor rates; CUTLASS/cuBLAS large GEMMs reach about 80% of them "
       "as on Ampere (NVIDIA 'Matrix Multiplication Background User's Guide', DU-09799-001, "
       "same tensor-core pipeline as GA102); FlashAttention-2 supports sm_89 with the Ampere "
       "kernels (arXiv:2307.08691), so Ampere's 0.70 is carried over; GDDR6X streaming about "
       "90% (Ada whitepaper memory subsystem; STREAM method of Deakin et al. 2018). FP8 "
       "(fourth-generation tensor cores, NVIDIA Ada GPU Architecture whitepaper): no public "
       "large-GEMM FP8 measurement was found; the BF16 fraction is carried over"},
      {"hopper", 0.75, 0.60, 0.55, 0.90, 0.70,
       "H100 SXM: cuBLAS 12 BF16 GEMM about 750 of 989 TFLOPS on large sizes (NVIDIA "
       "Technical Blog, 'New cuBLAS 12.0 Features and Matrix Multiplication Performance on "
       "NVIDIA Hopper GPUs', 2023); FlashAttention-3 BF16 at head dimension 128 and 8k "
       "tokens (Shah et al., arXiv:2407.08608, Sec. 4.1 figures): forward with a causal mask 602 "
       "TFLOPS (0.61; its 'up to 740 TFLOPS, 75%' is head dimension 256 without a mask), "
       "backward 559 TFLOPS (0.57); cuDNN's kernels in the same figures 529 and 518; STREAM "
       "triad about 3.0 of 3.35 TB/s (public H100 BabelStream runs; Deakin et al. 2018 method). "
       "FP8: Transformer Engine's own GEMM benchmark on an H200 NVL (NVIDIA/TransformerEngine "
       "docs/features/low_precision_training/speedups.rst at 03b5742f, 'Example: 5B Model on "
       "H200': hidden 4096, FFN 16384, 15,872 tokens) runs the layer's twelve GEMMs pre-quantized "
       "in FP8 1.92x as fast as in BF16, i.e. 0.75 x 1.92 x 989 / 1,979 = 0.72 of the FP8 peak "
       "beside BF16's 0.75 (rounded: 0.70); its 1.69x with DelayedScaling's casts is what the "
       "FP8 cast kernels add on top (layer_ops.cpp). DeepGEMM's best shape, 1,550 TFLOPS on an "
       "H800 (0.78; deepseek-ai/DeepGEMM README, 2025), is a hand-tuned kernel's best case"},
      {"blackwell", 0.75, 0.60, 0.55, 0.90, 0.70,
       "B200/GB200/RTX 5090: no independent public large-GEMM or STREAM figure was available "
       "when this row was written; Hopper's fractions (attention forward and backward too) are "
       "carried over (NVIDIA states the CUTLASS 3.8 SM100 kernels reach a similar or higher "
       "fraction of peak: CUTLASS "
       "README, 'Performance' section). Revise when measured. FP8: Hopper's carried over, as for "
       "BF16; Transformer Engine's B300 run of the same benchmark gives MXFP8 1.75-1.83x of BF16 "
       "pre-quantized (0.66-0.69 beside BF16's 0.75), in line with it"},
      {"cdna3", 0.55, 0.50, 0.50, 0.80, 0.55,
       "MI300X: hipBLASLt BF16 GEMMs measured at about 600-720 of 1,307 TFLOPS (SemiAnalysis, "
       "'MI300X vs H100 vs H200 Benchmark Part 1: Training', Dec 2024); about 4.2 of 5.3 TB/s "
       "HBM3 in a streaming test (Chips and Cheese, 'Testing AMD's Giant MI300X', 2024); "
       "attention: CK FlashAttention-2 below the GEMM fraction in the same SemiAnalysis runs. FP8: "
       "no FP8 GEMM figure in the same runs; the BF16 fraction is carried over"},
      {"default", 0.70, 0.50, 0.50, 0.75, 0.70,
       "An architecture this table lacks: the smallest fractions of the NVIDIA rows above "
       "(Turing's GEMM, Volta's attention, Pascal's HBM), so an unknown GPU is never credited "
       "with more than a known one. FP8: the default GEMM fraction"},
  };
  return table;
}

const ArchitectureEfficiency& architecture_efficiency(const std::string& architecture) {
  const auto& table = compute_efficiency_table();
  for (const auto& row : table) {
    if (row.architecture == architecture) return row;
  }
  return table.back();
}

}  // namespace linksim::work
