#pragma once
// How many channels NCCL runs its rings on, and at what speed it believes each one goes: its
// ring search (src/graph/search.cc ncclTopoCompute, ncclTopoDupChannels) and the doubling of
// connect.cc's ncclTopoPostset, at NVIDIA/nccl 5067397c, reduced to what decides it: on one
// node the bandwidth a GPU's rings can use, across nodes the NICs within the GPU's NVLinks,
// in NCCL's own link figures (topo.h: NVLink 18/20/20/20.6/40.1 GB/s per link by compute
// capability, 12 on SM86; PCIe width x rate / 80).
//
// Why it matters: NCCL splits every collective over its channels, each a CTA moving its share
// in chunks; how many there are decides how far a mid-size message fills its pipelines. NCCL
// searches in steps of fixed per-channel speeds, so a GPU's channel count is not simply its
// bandwidth over one speed: DGX A100 (12 x 20 GB/s) finds 6 rings at 40 GB/s, duplicates them
// to 12 at 20, and runs 24; DGX H100 (18 x 20.6 = 370.8) finds 6 at 60, then 12 at 30, and
// runs 24 too.

#include <span>

#include "sim/coll/nccl_net_device.hpp"

namespace linksim::coll {

// NCCL's per-channel speeds, GB/s, tried from the fastest (search.cc speedArrayIntra and its
// SM90 and SM100 forms), by the GPUs' lowest compute capability (topo::nccl_compute_capability).
std::span<const double> nccl_intra_search_speeds_GBps(int compute_capability);

// The same across nodes (search.cc speedArrayInter, sm90SpeedArrayInter, sm100SpeedArrayInter):
// a system with NICs searches every graph at these.
std::span<const double> nccl_inter_search_speeds_GBps(int compute_capability);

// NCCL's bandwidth for one NVLink of a GPU of `compute_capability` (topo.h
// ncclTopoNVLinkBw), GB/s.
double nccl_nvlink_GBps(int compute_capability);

// NCCL's bandwidth for a PCIe link of `generation` and `width` lanes (topo.cc: the kernel's
// link speed in units of 100 Mb/s per lane, 15/30/60/120/240 for generations 1-5, times the
// width, over 80), GB/s.
double nccl_pcie_GBps(int generation, int width);

struct NcclRingSearch {
  int search_channels = 1;  // graph->nChannels once the search and its duplication are done
  double channel_GBps = 0;  // graph->bwIntra: the speed NCCL assigns each of them
  int run_channels = 2;     // comm->nChannels: twice the search channels, and connect.cc's
                            // doublings across nodes; at most 32 here
};

// The search on one node whose GPUs' rings may use `total_GBps` per GPU in NCCL's figures (the
// ring's bottleneck: NVLink links x nccl_nvlink_GBps over NVSwitch, the PCIe link's figure on a
// PCIe tree). Pass 1 tries the speeds from the fastest that fits, keeping the most bandwidth
// (channels x speed) found, and stops once that covers the total or the next speed is under
// 0.49 of the best's; the channels then double at half speed when the speed is at least
// 25 GB/s (not on SM > 80 under 50 GB/s with more than 4 channels); pass 2 raises the speed
// while the same channels still fit. A GPU with nothing usable gets NCCL's fallback of one
// channel.
NcclRingSearch nccl_ring_search(double total_GBps, int compute_capability);

// The ring search across nodes. Each channel leaves and enters a node through one NIC at the
// channel's speed, so a NIC of B GB/s carries floor(B / speed) channels; maxBw is the fastest
// NIC and totalBw their sum (the GPU-NIC paths are taken not to bind, as on every shipped
// cluster). Inside a node every channel passes through each GPU once, and followPath takes the
// channel's speed out of the GPU's NVLinks, so with `gpu_nvlink_GBps` (a GPU's NVLinks in
// NCCL's figures; 0: a node of one GPU, or no NVLink, not bounded here) at most
// floor(gpu_nvlink_GBps / speed) channels fit: a DGX H100's 18 x 20.6 = 370.8 GB/s carry 7
// rings at 48 GB/s and 8 at 45, so its eight 400 Gb/s NICs get 8 x 45, not 8 x 48. Pass 1, the
// duplication and pass 2 as above; then, on SM90 and newer, connect.cc's multi-node doubling of
// the channels run (not of the graph): a graph above 45 GB/s a channel whose doubled channels
// are still fewer than 16 runs twice as many again, and then, on a network device that unpacks
// on the GPU (nccl_net_device.hpp), the same again under 16: one step, connect.cc's order, one
// cap of 32 channels.
// `nic_GBps`: the NICs a node's rings leave by, in NCCL's figures (line rate / 8 Gb per GB).
NcclRingSearch nccl_inter_ring_search(std::span<const double> nic_GBps, int compute_capability,
                                      double gpu_nvlink_GBps = 0,
                                      NcclNetDevice device = NcclNetDevice::host);

}  // namespace linksim::coll
