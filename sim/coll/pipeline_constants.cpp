#include "sim/coll/pipeline_constants.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace linksim::coll {
namespace {

constexpr double kKiB = 1024;
constexpr double kUs = 1e-6;

// Buffers (src/init.cc, ../shared/reference/nccl-model.md §2 "Buffers and chunks"): Simple's
// step is the caller's (kDefaultSimpleStepBytes unless NCCL_BUFFSIZE says otherwise); LL 512
// KiB of 16 B lines of which half are flags, so a step carries 32 KiB of data; LL128 4,915,200
// B of 128 B lines carrying 120 B.
constexpr double kLlStepDataBytes = 512 * kKiB / kNcclSteps / 2;
constexpr double kLl128StepDataBytes = 4915200.0 / kNcclSteps * 120 / 128;

// Fitted once on the reference sets; scripts/loo-pipeline-constants.sh rebuilds with other
// values (the macros exist for it alone) for docs/ACCURACY.md's leave-one-machine-out table.
#ifndef LINKSIM_SIMPLE_SLICE_SYNC_US
#define LINKSIM_SIMPLE_SLICE_SYNC_US 3.5
#endif
#ifndef LINKSIM_NVLS_COPY_GBPS
#define LINKSIM_NVLS_COPY_GBPS 300
#endif
constexpr double kSimpleSliceSync_us = LINKSIM_SIMPLE_SLICE_SYNC_US;
constexpr double kNvlsChunkSync_us = kSimpleSliceSync_us;
constexpr double kNvlsCopy_GBps = LINKSIM_NVLS_COPY_GBPS;
// The copy rate was fitted on an H100 sweep, where NCCL runs 16 NVLS channels: each channel's
// scatter and gather warps copy a sixteenth of it, whatever the GPU's channel count.
constexpr double kNvlsCopyFittedChannels = 16;

constexpr std::array<FittedConstant, 2> kFitted{{
    {"Simple slice synchronisation (also each NVLS chunk stage)", kSimpleSliceSync_us, "us",
     "fitted on the five reference sweeps together (scripts/loo-pipeline-constants.sh, "
     "2026-12-03: the pair with the lowest mean median error on a 1.5-5.5 us x 200-400 GB/s "
     "grid; the A100's Ring/Simple from 32 MiB and the H100 NVLS sweep's per-chunk-size "
     "slopes weigh most; rechecked after the p4de pair ran as its network plugin sets it: "
     "still the lowest mean); leave-one-out in docs/ACCURACY.md"},
    {"NVLS scatter/gather copy rate", kNvlsCopy_GBps, "GB/s",
     "fitted with it (how far the H100 NVLS sweep's fill grows with the chunk size), for all 16 "
     "NVLS channels of a Hopper GPU: a channel copies a sixteenth, so Blackwell's 24 or 32 "
     "channels (NCCL's nvls.cc) copy 1.5 or 2 times as fast"},
}};

double step_data_bytes(Protocol p, double simple_step_bytes) {
  switch (p) {
    case Protocol::ll:
      return kLlStepDataBytes;
    case Protocol::ll128:
      return kLl128StepDataBytes;
    case Protocol::simple:
      return simple_step_bytes;
  }
  return simple_step_bytes;
}

}  // namespace

ChunkShape ring_chunk_shape(Protocol p, Op op, double simple_step_bytes) {
  ChunkShape s;
  s.chunk_bytes = step_data_bytes(p, simple_step_bytes);
  const bool two_phase = op == Op::all_reduce || op == Op::all_gather || op == Op::reduce_scatter;
  if (p == Protocol::simple && two_phase) {
    // ALLREDUCE_CHUNKSTEPS = NCCL_STEPS / 2, ALLREDUCE_SLICESTEPS = NCCL_STEPS / 4
    // (src/include/collectives.h): a chunk of four steps in two slices, four slices of room.
    constexpr int kChunkSteps = kNcclSteps / 2;
    constexpr int kSliceSteps = kNcclSteps / 4;
    s.chunk_bytes *= kChunkSteps;
    s.slices = kChunkSteps / kSliceSteps;
    s.window_slices = kNcclSteps / kSliceSteps;
  }
  return s;
}

ChunkShape tree_chunk_shape(Protocol p, double channel_bytes, int nodes, int ranks_per_node,
                            double simple_step_bytes, int nccl_version) {
  ChunkShape s;
  s.chunk_bytes = step_data_bytes(p, simple_step_bytes);
  int log2_nodes = 0;
  for (int v = std::max(1, nodes); v > 1; v >>= 1)
    ++log2_nodes;
  // enqueue.cc compares an integer quotient, so whole chunks count.
  const auto chunks = [&] { return std::floor(channel_bytes / s.chunk_bytes); };
  if (p == Protocol::simple && nccl_version < kTreeWholeStepSince) {
    const double depth = std::max(1, ranks_per_node) - 1 + log2_nodes;
    while (chunks() < depth * 8 && s.chunk_bytes > 128 * kKiB)
      s.chunk_bytes /= 2;
    while (chunks() < depth * 4 && s.chunk_bytes > 64 * kKiB)
      s.chunk_bytes /= 2;
    while (chunks() < depth && s.chunk_bytes > 32 * kKiB)
      s.chunk_bytes /= 2;
  }
  if (p == Protocol::ll128) {
    const double ppn = std::max(1, ranks_per_node);
    const double nsteps = 1 + log2_nodes + 0.1 * ppn;
    while (chunks() < nsteps * 64 / ppn && s.chunk_bytes > 128 * kKiB)
      s.chunk_bytes /= 2;
    while (chunks() < nsteps * 16 / ppn && s.chunk_bytes > 32 * kKiB)
      s.chunk_bytes /= 2;
  }
  return s;
}

double nvls_chunk_bytes(double bytes, int channels, int heads, double max_chunk_bytes) {
  double chunk = max_chunk_bytes;
  const double ops = static_cast<double>(channels) * heads;
  if (bytes < 64 * ops * chunk && chunk > 64 * kKiB) chunk = 64 * kKiB;
  if (bytes < 8 * ops * chunk && chunk > 32 * kKiB) chunk = 32 * kKiB;
  if (bytes < 2 * ops * chunk && chunk > 16 * kKiB) chunk = 16 * kKiB;
  return chunk;
}

double slice_sync_s(Protocol p, HwClass /*c*/) {
  return p == Protocol::simple ? kSimpleSliceSync_us * kUs : 0.0;
}

double nvls_chunk_sync_s() {
  return kNvlsChunkSync_us * kUs;
}

double nvls_copy_per_channel_Bps() {
  return kNvlsCopy_GBps * 1e9 / kNvlsCopyFittedChannels;
}

std::span<const FittedConstant> fitted_pipeline_constants() {
  return kFitted;
}

}  // namespace linksim::coll
