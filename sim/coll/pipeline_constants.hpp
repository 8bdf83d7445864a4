#pragma once
// The constants of NCCL's data movement that its source fixes (chunk and slice sizes, buffer
// slots) and the few that no source gives and were fitted once on ../shared/reference/ data
// (per-slice synchronisation). Every row says which it is. linksim fit is the per-machine path;
// nothing here is tuned to one machine's sweep.

#include <span>
#include <string_view>

#include "sim/coll/collective.hpp"
#include "sim/coll/protocol.hpp"
#include "sim/core/nccl_version.hpp"

namespace linksim::coll {

// NCCL_STEPS (src/include/device.h): buffer slots per connection.
inline constexpr int kNcclSteps = 8;

// How one channel's share of a send is cut (src/enqueue.cc calcCollChunking, device.h):
// `chunk_bytes` of payload per loop and step, moved as `slices` slices; a sender may have
// `window_slices` slices in its receiver's buffer not yet consumed.
struct ChunkShape {
  double chunk_bytes = 0;
  int slices = 1;
  int window_slices = kNcclSteps;
};

// A Simple step: NCCL's default 4 MiB buffer (init.cc DEFAULT_BUFFSIZE) over NCCL_STEPS slots.
// NCCL_BUFFSIZE changes it (Communicator::simple_step_bytes).
inline constexpr double kDefaultSimpleStepBytes = 4.0 * 1024 * 1024 / kNcclSteps;

// Ring all-reduce, all-gather and reduce-scatter (chunkSteps/sliceSteps 4/2 for Simple), and the
// streaming ops broadcast and reduce (1/1), by protocol; Simple's steps are `simple_step_bytes`.
ChunkShape ring_chunk_shape(Protocol p, Op op, double simple_step_bytes = kDefaultSimpleStepBytes);
// Tree all-reduce (enqueue.cc calcCollChunking at NVIDIA/nccl 5067397c): one step a chunk.
// Simple's chunk is the whole step from NCCL 2.20 on; before (`nccl_version` under 22000,
// enqueue.cc computeColl @v2.19.4-1) it halves while a channel would get fewer than depth x 8
// chunks (down to 128 KiB), then depth x 4 (down to 64 KiB), then depth (down to 32 KiB), where
// depth = ranks per node - 1 + log2(nodes) (connect.cc connectTrees). LL128's halves while a
// channel would get fewer than nsteps x 64 / ppn chunks (down to 128 KiB), then nsteps x 16 /
// ppn (down to 32 KiB), where nsteps = 1 + log2(nodes) + ppn / 10.
inline constexpr int kTreeWholeStepSince = 22000;
ChunkShape tree_chunk_shape(Protocol p, double channel_bytes, int nodes, int ranks_per_node,
                            double simple_step_bytes = kDefaultSimpleStepBytes,
                            int nccl_version = kModelledNcclVersion);
// NVLS: chunks of at most `max_chunk_bytes` (NCCL_NVLS_CHUNKSIZE, 128 KiB by default; see
// Communicator::nvls_max_chunk_bytes), 64/32/16 KiB for small messages, by how many chunks the
// channels' heads would get (enqueue.cc computeColl: concurrentOps = channels x heads; each
// test compares with the chunk as the previous one left it).
inline constexpr double kNvlsChunk_bytes = 128 * 1024;  // nvls.cc NCCL_NVLS_CHUNKSIZE
double nvls_chunk_bytes(double bytes, int channels, int heads,
                        double max_chunk_bytes = kNvlsChunk_bytes);

// What a slice costs its sending CTA beyond moving its bytes, seconds: Simple waits at a
// barrier and a __threadfence_system before it posts the slice's flag (prims_simple.h); LL and
// LL128 carry their flags in the data and pay nothing extra. Fitted (see the .cpp table).
double slice_sync_s(Protocol p, HwClass c);
// The same for one NVLS chunk (multimem.ld_reduce then multimem.st, a fence and flags).
double nvls_chunk_sync_s();
// How fast one NVLS channel's scatter and gather warps copy a GPU's data between its buffers
// and the NVLS buffers, bytes per second; a message copies at the rate of the channels it
// reaches (16 on Hopper, 24 or 32 on Blackwell). The copies fill and drain the pipeline.
double nvls_copy_per_channel_Bps();

// One row of the fitted-constants table, for the docs and `--explain`.
struct FittedConstant {
  std::string_view name;
  double value;
  std::string_view unit;
  std::string_view basis;  // the source, or the reference rows it was fitted on
};
// Every fitted constant of the data-movement model, in a fixed order.
std::span<const FittedConstant> fitted_pipeline_constants();

}  // namespace linksim::coll
