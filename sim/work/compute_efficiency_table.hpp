#pragma once
// The few compute constants that cannot be derived from a GPU's datasheet, one row per GPU
// generation (architecture), each citing a public source (docs/compute-model.md explains how
// they are used):
//  - gemm_fraction: the fraction of the dense tensor-core peak a large, well-shaped GEMM's
//    main loop reaches per SM in cuBLAS/CUTLASS (clock droop under load, pipeline fill, the
//    epilogue). Tile and wave quantization are NOT in it: gemm_time.hpp derives them.
//  - attention_fraction: the same for a FlashAttention kernel's forward pass with a causal mask
//    (FLOPs counted as the kernel does them: masked tiles skipped), from the FlashAttention
//    papers' measured fraction of peak at head dimension 128.
//  - attention_backward_fraction: the same for its backward pass, which runs below the forward:
//    five matmuls instead of two, dQ accumulated across thread blocks, more shared-memory
//    traffic per FLOP (FlashAttention-2, arXiv:2307.08691, Sec. 3.1.2). Where no measurement of
//    the backward alone was found, the forward's fraction.
//  - hbm_fraction: the fraction of the datasheet memory bandwidth a streaming kernel (STREAM
//    copy/triad, an elementwise op, a weight read) sustains.
//  - fp8_gemm_fraction: gemm_fraction for an FP8 GEMM (E4M3/E5M2 operands, per-tensor scales,
//    bf16 output: what Transformer Engine calls through cuBLASLt), of the dense FP8 peak; 0 for
//    a generation without FP8 tensor cores (before Ada and Hopper), which refuses FP8 matmuls.
// All are in (0, 1] (fp8_gemm_fraction: 0 for none): nothing in the compute model runs above the
// datasheet's peaks.

#include <string>
#include <vector>

namespace linksim::work {

struct ArchitectureEfficiency {
  std::string architecture;  // as topo::GpuModel::architecture spells it
  double gemm_fraction = 0;
  double attention_fraction = 0;
  double attention_backward_fraction = 0;
  double hbm_fraction = 0;
  double fp8_gemm_fraction = 0;
  std::string source;
};

// Every row, in the table's order.
const std::vector<ArchitectureEfficiency>& compute_efficiency_table();

// The row for `architecture`; an architecture the table lacks (a GPU defined in a topology
// file without one, or an unknown name) gets the "default" row: the smallest fractions of the
// NVIDIA rows, so that an unknown GPU is not credited with more than a known one.
const ArchitectureEfficiency& architecture_efficiency(const std::string& architecture);

}  // namespace linksim::work
