#include "sim/work/gemm_time.hpp"

#include <algorithm>
#include <cmath>

namespace linksim::work {

const std::vector<TileShape>& gemm_tiles() {
  static const std::vector<TileShape> tiles = {{128, 256}, {128, 128}, {64, 128}, {16, 128}};
  return tiles;
}

double split_k(double output_tiles, double k, double sms) {
  if (output_tiles >= sms) return 1;
  return std::max(1.0, std::min(std::floor(sms / output_tiles), std::floor(k / kMinSplitK)));
}

GemmTime gemm_time(const GemmShape& g, const GpuRates& gpu) {
  GemmTime t;
  t.memory_s = memory_time_s(g.bytes(), gpu);
  if (g.flops() <= 0 || gpu.peak_flops <= 0) {
    t.seconds = t.memory_s;
    return t;
  }
  if (gpu.sm_count <= 0) {
    t.compute_s = g.flops() / (gpu.peak_flops * gpu.gemm_fraction);
  } else {
    const double sms = gpu.sm_count;
    const double per_sm_flops = gpu.peak_flops / sms * gpu.gemm_fraction;
    bool first = true;
    for (const TileShape& tile : gemm_tiles()) {
      const double output_tiles = g.batch * std::ceil(g.m / tile.m) * std::ceil(g.n / tile.n);
      const double split = split_k(output_tiles, g.k, sms);
      const double waves = std::ceil(output_tiles * split / sms);
      const double s = waves * (2.0 * tile.m * tile.n * (g.k / split)) / per_sm_flops;
      if (first || s < t.compute_s) {
        t.compute_s = s;
        t.tile = tile;
        t.waves = waves;
        t.split_k = split;
        first = false;
      }
    }
    // Split-K's fp32 partial sums: written by each slice, read back by the reduction.
    if (t.split_k > 1) t.memory_s += memory_time_s(2 * t.split_k * g.batch * g.m * g.n * 4, gpu);
  }
  t.seconds = std::max(t.compute_s, t.memory_s);
  return t;
}

double memory_time_s(double bytes, const GpuRates& gpu) {
  return bytes > 0 ? bytes / gpu.achievable_hbm_Bps() : 0;
}

double roofline_time_s(double flops, double fraction, double bytes, const GpuRates& gpu) {
  const double compute = flops > 0 ? flops / (gpu.peak_flops * fraction) : 0;
  return std::max(compute, memory_time_s(bytes, gpu));
}

}  // namespace linksim::work
