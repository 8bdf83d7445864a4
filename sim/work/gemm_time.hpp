#pragma once
// How long one GPU takes for a matmul or a memory-bound kernel, from mechanism
// (docs/compute-model.md):
//
// GEMM C[M×N] = A[M×K]·B[K×N] (`batch` independent ones of that shape):
//   for each candidate CTA tile tm×tn (128×256, 128×128, 64×128, and 16×128 for the skinny
//   GEMMs of decode, whose tokens fill one MMA's 16 rows):
//     tiles = batch · ceil(M/tm) · ceil(N/tn)
//     split = 1, or with fewer tiles than SMs split-K: min(floor(SMs / tiles), floor(K / 256))
//             slices of K, each its own CTA (cuBLAS and CUTLASS split K so a skinny GEMM uses
//             every SM)
//     waves = ceil(tiles · split / SMs)
//     compute = waves · (2·tm·tn·K/split) / (peak / SMs) / gemm_fraction
//   the tile with the least compute time is taken (ties: the earlier, larger tile), as a
//   cuBLAS heuristic that minimises padded work would: a 1.5-wave GEMM takes 2 waves.
//   memory = (A + B + C bytes, plus split-K's fp32 partials written and read back)
//            / (hbm_bandwidth · hbm_fraction)
//   time = max(compute, memory)
// A GPU without a published SM count gets no quantization: compute = 2·M·N·K·batch / (peak ·
// gemm_fraction). Since every fraction is at most 1 and padding only adds work, no GEMM runs
// above the dense peak or moves bytes above the datasheet bandwidth.

#include <vector>

namespace linksim::work {

// The rates one GPU runs a job's kernels at: its dense peak for the job's dtype, SM count,
// the achievable fractions (compute_efficiency_table.hpp) and HBM bandwidth.
struct GpuRates {
  double peak_flops = 0;  // dense tensor-core peak for the dtype, FLOP/s
  int sm_count = 0;       // 0: not published (no wave quantization)
  double gemm_fraction = 1;
  double attention_fraction = 1;           // FlashAttention forward
  double attention_backward_fraction = 1;  // FlashAttention backward
  double hbm_Bps = 0;                      // datasheet memory bandwidth
  double hbm_fraction = 1;

  double achievable_hbm_Bps() const { return hbm_Bps * hbm_fraction; }
};

struct GemmShape {
  double batch = 1;  // independent GEMMs of this shape (attention heads, MoE experts)
  double m = 0;
  double n = 0;
  double k = 0;
  double a_bytes = 2;  // per element of A (activations)
  double b_bytes = 2;  // per element of B (weights: quantized formats have fractional bytes)
  double c_bytes = 2;  // per element of C

  double flops() const { return 2 * batch * m * n * k; }
  double bytes() const { return batch * (m * k * a_bytes + k * n * b_bytes + m * n * c_bytes); }
};

struct TileShape {
  int m = 0;
  int n = 0;
};

// The candidate CTA tiles, largest first (NVIDIA "Matrix Multiplication Background User's
// Guide", DU-09799-001, Sec. 2.3 "Typical tile dimensions in cuBLAS").
const std::vector<TileShape>& gemm_tiles();

// Smallest K slice split-K makes.
inline constexpr double kMinSplitK = 256;
// Slices of K for a GEMM of `output_tiles` tiles on `sms` SMs (1: no split).
double split_k(double output_tiles, double k, double sms);

struct GemmTime {
  double seconds = 0;    // max(compute_s, memory_s)
  double compute_s = 0;  // waves of tiles at the per-SM rate
  double memory_s = 0;   // operand and output bytes at the achievable HBM bandwidth
  TileShape tile;        // the tile taken ({0, 0} without an SM count)
  double waves = 0;
  double split_k = 1;
};

GemmTime gemm_time(const GemmShape& gemm, const GpuRates& gpu);

// A kernel that streams `bytes` through HBM at the achievable bandwidth.
double memory_time_s(double bytes, const GpuRates& gpu);

// A kernel of `flops` at `fraction` of the dense peak that moves `bytes`: the longer of the
// two (attention cores, LoRA adapters and other matmuls without one GEMM's shape).
double roofline_time_s(double flops, double fraction, double bytes, const GpuRates& gpu);

}  // namespace linksim::work
