#include "sim/coll/nccl_channel_search.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace linksim::coll {
namespace {

// search.cc: speedArrayIntra, sm90SpeedArrayIntra, sm100SpeedArrayIntra.
constexpr std::array<double, 13> kSpeedsIntra{40, 30, 20, 18, 15, 12, 10, 9, 7, 6, 5, 4, 3};
constexpr std::array<double, 11> kSpeedsIntraSm90{60, 50, 40, 30, 24, 20, 15, 12, 11, 6, 3};
constexpr std::array<double, 12> kSpeedsIntraSm100{90, 80, 70, 60, 50, 45, 40, 30, 24, 20, 19, 18};
// search.cc: speedArrayInter, sm90SpeedArrayInter, sm100SpeedArrayInter.
constexpr std::array<double, 19> kSpeedsInter{48, 30, 28, 24, 20, 18,  15,  12,  10, 9,
                                              7,  6,  5,  4,  3,  2.4, 1.2, .24, .12};
constexpr std::array<double, 17> kSpeedsInterSm90{48, 45, 42, 40, 30,  24,  22,  20, 17.5,
                                                  15, 12, 6,  3,  2.4, 1.2, .24, .12};
constexpr std::array<double, 20> kSpeedsInterSm100{96, 86,   80, 48, 45.1, 42, 40,  30,  24,  22,
                                                   20, 17.5, 15, 12, 6,    3,  2.4, 1.2, .24, .12};
// connect.cc: on SM90 across nodes, rings above this speed per channel that run fewer than
// kSm90DoubleBelowChannels channels run twice as many.
constexpr double kSm90DoubleAbove_GBps = 45.0;
constexpr int kSm90DoubleBelowChannels = 16;

// init.cc: ringGraph->maxChannels = MAXCHANNELS / 2.
constexpr int kMaxSearchChannels = 32;
// linksim runs at most 32 channels, as it did before this search (NCCL's own limit is
// MAXCHANNELS, 64; no shipped single node's search asks for more than 32).
constexpr int kMaxRunChannels = 32;
// Floating-point slack when channels x speed meets a total exactly (6 x 40 = 240 on A100).
constexpr double kSlack = 1e-9;

// How many rings of `speed` fit in `total`, at most the search's limit.
int rings_at(double speed, double total_GBps) {
  return std::min(kMaxSearchChannels, static_cast<int>(std::floor(total_GBps / speed + kSlack)));
}

}  // namespace

std::span<const double> nccl_intra_search_speeds_GBps(int compute_capability) {
  if (compute_capability >= 100) return kSpeedsIntraSm100;
  if (compute_capability >= 90) return kSpeedsIntraSm90;
  return kSpeedsIntra;
}

std::span<const double> nccl_inter_search_speeds_GBps(int compute_capability) {
  if (compute_capability >= 100) return kSpeedsInterSm100;
  if (compute_capability >= 90) return kSpeedsInterSm90;
  return kSpeedsInter;
}

double nccl_nvlink_GBps(int compute_capability) {
  // topo.h: SM60 18, SM70 20, SM80 20, SM86 12, SM90 20.6, SM100 40.1; anything else SM80's.
  if (compute_capability >= 100) return 40.1;
  if (compute_capability >= 90) return 20.6;
  if (compute_capability == 86) return 12.0;
  if (compute_capability >= 80) return 20.0;
  if (compute_capability >= 70) return 20.0;
  if (compute_capability >= 60) return 18.0;
  return 20.0;
}

double nccl_pcie_GBps(int generation, int width) {
  // topo.cc kvDictPciGen: 2.5, 5, 8, 16, 32 GT/s -> 15, 30, 60, 120, 240; bw = width x
  // speed / 80. Generation 6 (64 GT/s) continues the doubling.
  const int g = std::clamp(generation, 1, 6);
  const double per_lane = 15.0 * static_cast<double>(1 << (g - 1));
  return width * per_lane / 80.0;
}

namespace {

// Pass 1, the duplication, pass 2 and (across nodes) the SM90 doubling of the run channels
// over `speeds`, with `channels_at(speed)` the channels that fit at a speed, `max_GBps` and
// `total_GBps` NCCL's system maxBw and totalBw.
template <typename ChannelsAt>
NcclRingSearch search(std::span<const double> speeds, double max_GBps, double total_GBps,
                      int compute_capability, bool across_nodes, ChannelsAt channels_at) {
  const std::size_t last = speeds.size() - 1;
  // Pass 1: the fastest speed that fits.
  std::size_t i = 0;
  while (i < last && speeds[i] > max_GBps + kSlack)
    ++i;
  int best_channels = 0;
  double best_speed = 0;
  for (;;) {
    const int found = channels_at(speeds[i]);
    // ncclTopoCompareGraphs: a solution replaces the kept one only with more channels x speed.
    if (found > 0 && found * speeds[i] > best_channels * best_speed + kSlack) {
      best_channels = found;
      best_speed = speeds[i];
    }
    if (best_channels > 0 && best_channels * best_speed >= total_GBps - kSlack) break;
    if (best_channels == kMaxSearchChannels) break;  // the search's "perfect" solution
    if (i < last && (best_channels == 0 || speeds[i + 1] / best_speed > 0.49)) {
      ++i;
      continue;
    }
    break;
  }
  NcclRingSearch r;
  if (best_channels == 0) {
    // "Could not find a path": simple order, bwIntra 0.1.
    r.search_channels = 1;
    r.channel_GBps = 0.1;
    r.run_channels = 2;
    return r;
  }
  // ncclTopoDupChannels.
  const bool dup =
      best_speed >= 25.0 && !(compute_capability > 80 && best_speed < 50.0 && best_channels > 4);
  if (dup) {
    const int doubled = std::min(best_channels * 2, kMaxSearchChannels);
    const int divide = (doubled + best_channels - 1) / best_channels;
    best_speed /= divide;
    best_channels = doubled;
  }
  // Pass 2: raise the speed while the same channels still fit.
  std::size_t k = 0;
  while (k < last && speeds[k] > best_speed + kSlack)
    ++k;
  const int pass2_min = best_channels;
  while (k > 0) {
    const int found = channels_at(speeds[k - 1]);
    if (found < pass2_min) break;
    --k;
    best_channels = found;
    best_speed = speeds[k];
  }
  r.search_channels = best_channels;
  r.channel_GBps = best_speed;
  r.run_channels = std::min(kMaxRunChannels, 2 * best_channels);
  // connect.cc (ncclTopoPostset): after the rings are duplicated, on SM90 and newer across
  // nodes, a ring graph faster than 45 GB/s a channel that runs fewer than 16 channels runs
  // twice as many copies of them; the graph itself (channels, bwIntra) is not changed.
  if (across_nodes && compute_capability >= 90 && best_speed > kSm90DoubleAbove_GBps &&
      r.run_channels < kSm90DoubleBelowChannels) {
    r.run_channels = std::min(kMaxRunChannels, 2 * r.run_channels);
  }
  return r;
}

}  // namespace

NcclRingSearch nccl_ring_search(double total_GBps, int compute_capability) {
  // One node: maxBw and totalBw are the same figure, the GPU's ring bandwidth.
  return search(nccl_intra_search_speeds_GBps(compute_capability), total_GBps, total_GBps,
                compute_capability, false,
                [&](double speed) { return rings_at(speed, total_GBps); });
}

NcclRingSearch nccl_inter_ring_search(std::span<const double> nic_GBps, int compute_capability,
                                      double gpu_nvlink_GBps, NcclNetDevice device) {
  double max_GBps = 0;
  double total_GBps = 0;
  for (double b : nic_GBps) {
    max_GBps = std::max(max_GBps, b);
    total_GBps += b;
  }
  // A NIC of B GB/s carries floor(B / speed) channels; each also crosses the GPU's NVLinks.
  const auto channels_at = [&](double speed) {
    int channels = 0;
    for (double b : nic_GBps)
      channels += static_cast<int>(std::floor(b / speed + kSlack));
    if (gpu_nvlink_GBps > 0) channels = std::min(channels, rings_at(speed, gpu_nvlink_GBps));
    return std::min(kMaxSearchChannels, channels);
  };
  NcclRingSearch r = search(nccl_inter_search_speeds_GBps(compute_capability), max_GBps, total_GBps,
                            compute_capability, true, channels_at);
  // connect.cc, after the SM90 doubling: a network device that unpacks on the GPU doubles again.
  r.run_channels = nccl_unpack_doubled_channels(r.run_channels, device, kMaxRunChannels);
  return r;
}

}  // namespace linksim::coll
