#pragma once
// How a GPU-to-GPU copy (cudaMemcpyPeer, as p2pBandwidthLatencyTest makes it) moves: directly
// over a peer path, or staged through pinned host memory, as the CUDA driver does it.
//
// Direct: with peer access, over direct NVLink (or through NVSwitches) or PCIe peer-to-peer.
// A copy never relays through a third GPU: that is NCCL's NVB, not the copy engines'.
//
// Staged: without peer access (off, or impossible), on every machine whatever links the GPUs
// share. The driver moves the copy in chunks through staging slots in pinned host memory on the
// source's socket: the source's copy engine writes a chunk up into a free slot (device to host,
// over the source's PCIe path into the root complex), the host sees it land and hands it on
// (kCopyConstants.staged_handoff_s), the destination's copy engine reads it down (host to
// device, out of the root complex over the destination's PCIe path), and the host hands the
// slot back (another hand-off). With two slots the up leg of one chunk overlaps the down leg of
// the one before; with one, nothing overlaps. Per chunk k of s_k bytes, alone on the machine:
//   up_start(k)   = max(up_end(k-1), down_end(k-slots) + handoff)
//   up_end(k)     = up_start(k) + up_latency + s_k / up_rate
//   down_start(k) = max(up_end(k) + handoff, down_end(k-1))
//   down_end(k)   = down_start(k) + down_latency + s_k / down_rate
// and the copy ends at launch + down_end(last). In steady state one chunk of C bytes takes
// C / rate + latency + handoff with two slots (rate the slower leg's), and
// C / up + C / down + latencies + 2 handoffs with one. sim/coll/copy_bench.cpp runs the same
// chunks as engine tasks, so that concurrent copies share links; alone, the two agree.

#include <optional>
#include <vector>

#include "sim/topo/routing.hpp"
#include "sim/topo/topology.hpp"

namespace linksim::topo {

// The copy p2pBandwidthLatencyTest times: numElems = 40,000,000 ints (160 MB) since
// cuda-samples e6ce58fe (2020, CUDA 11). `topo show`'s pair figures are this copy too.
inline constexpr double kP2pTestBytes = 160e6;

// The copy model's constants that no machine file gives. Each is fitted once on public
// measurements (never per machine); the row says which.
struct CopyConstants {
  // Launch and completion of one copy on the GPU's clock: the sample's own diagonal latency,
  // 1.26-1.33 us on the 2x 2080 Ti printout (../shared/reference/measurements.md).
  double launch_s;
  // Host hand-off between the two legs of a staged chunk, and again when a slot is handed back.
  // Fitted on the same printout's staged GPU latencies 14.76, 13.95, 14.99, 13.63 us (mean
  // 14.33): a one-chunk copy is launch 1.3 + up 0.5 + handoff + down 0.5 us, so 12.0 us. Real
  // machines measure 11-25 us staged (cuda-samples#230: 11.1-19.6 us; nccl#1127: 11.6-20.7 us).
  double staged_handoff_s;
  // Staging slot size. Fitted on HGX H100's P2P=Disabled row (nccl#1264, GPU0 row mean 37.15
  // GB/s over PCIe 5.0 x16, payload 52.48 GB/s, two slots): C / (C / 52.48e9 + 12 us) =
  // 37.15e9 gives C = 12e-6 / (1/37.15e9 - 1/52.48e9) = 1.53 MB; 1.5 MiB is taken. Checked on
  // nccl#814 (PCIe 4.0 x16, 26.24 GB/s payload, 0.5 us legs): predicts 21.6 GB/s, measured
  // 20.1-22.4.
  double staged_chunk_bytes;
  // Staging slots in flight. Two (double buffering) where both GPUs are ones whose driver offers
  // peer-to-peer (the H100 and nccl#814 rows above). One where either is a GeForce card whose
  // driver withholds it: fitted on the 2x 2080 Ti printout (5.71 GB/s one way and 6.12 both
  // ways over PCIe 3.0, where two slots would give 11.8 one way; one slot gives 5.94 and 6.24)
  // and the 3x RTX 4090 bidirectional matrix (25.6-26.15 GB/s; one slot gives 21.8).
  int staged_slots_p2p_gpus;
  int staged_slots_geforce;
  // The host's cost to enqueue one copy, as the sample's CPU latency matrix reports it (the
  // stream is blocked while it enqueues, so this is API time only). 2x 2080 Ti printout: direct
  // copies (the diagonal) 3.55, 3.32, 3.36, 3.27 us, mean 3.375; staged copies 11.08, 10.48,
  // 10.34, 10.47 us, mean 10.59.
  double enqueue_s;
  double staged_enqueue_s;
  // Achievable share of peak DRAM bandwidth for a device-local copy (STREAM-like): 0.75-0.88 in
  // bandwidthTest D2D on T4, V100, A100 and 2080 Ti (../shared/reference/measurements.md).
  double dram_copy_efficiency;
};

inline constexpr CopyConstants kCopyConstants{
    .launch_s = 1.3e-6,
    .staged_handoff_s = 12.0e-6,
    .staged_chunk_bytes = 1.5 * 1024 * 1024,
    .staged_slots_p2p_gpus = 2,
    .staged_slots_geforce = 1,
    .enqueue_s = 3.4e-6,
    .staged_enqueue_s = 10.6e-6,
    .dram_copy_efficiency = 0.8,
};

// The route options of a copy: peer paths as `peer_access` says, never a relay GPU.
RouteOptions copy_route_options(bool peer_access);

// How one copy between two GPUs moves.
struct CopyPath {
  bool staged = false;
  Route direct;           // when not staged
  Route up;               // staged: source GPU -> the bounce socket's pinned memory
  Route down;             // staged: that memory -> destination GPU
  NodeId bounce_cpu = 0;  // staged
  int slots = 0;          // staged: staging slots in flight
};

// The copy from `peer_route` (router.route(src, dst, copy_route_options(peer_access))); nullopt
// when the GPUs cannot reach each other at all.
std::optional<CopyPath> copy_path(const Router& router, const std::optional<Route>& peer_route);
std::optional<CopyPath> copy_path(const Router& router, NodeId src, NodeId dst, bool peer_access);

// The staged chunks of a copy of `bytes`: full slots, then the remainder.
std::vector<double> staged_chunks(double bytes);

// Time of one copy of `bytes` alone on the machine, launch included (the recurrence above for
// a staged copy; launch + path latency + bytes / payload rate for a direct one).
double copy_time_s(const Topology& topo, const CopyPath& path, double bytes);

// What one copy of `bytes` sustains between two GPUs: bytes / copy_time_s. The one function
// behind both `linksim p2p`'s one-way matrices and `topo show`'s slowest and fastest pair.
double pair_copy_bandwidth_Bps(const Topology& topo, const CopyPath& path, double bytes);

}  // namespace linksim::topo
