#include "sim/coll/protocol.hpp"

#include <algorithm>
#include <array>

#include "sim/coll/pipeline_constants.hpp"

namespace linksim::coll {
namespace {

constexpr double kGBps = 1e9;

std::size_t gen_index(GpuGeneration g) {
  return static_cast<std::size_t>(g);
}

}  // namespace

std::string_view to_string(HwClass c) {
  switch (c) {
    case HwClass::nvlink:
      return "NVLink";
    case HwClass::pci:
      return "PCI";
    case HwClass::net:
      return "NET";
  }
  return "?";
}

GpuGeneration generation_of(const std::string& architecture) {
  if (architecture == "blackwell") return GpuGeneration::blackwell;
  if (architecture == "hopper") return GpuGeneration::hopper;
  if (architecture == "ampere" || architecture == "ada") return GpuGeneration::ampere;
  return GpuGeneration::volta;  // volta, turing, pascal: NCCL's first row
}

double wire_efficiency(Protocol p) {
  // Simple's share of a link's payload rate, once its per-slice synchronisation is simulated
  // apart (pipeline_constants.hpp, slice_sync_s): NVIDIA's maintainer puts NCCL's Ring at
  // "370GB/s" busbw on the H100's 450 GB/s line rate (nccl-tests#212), and copy engines reach
  // 47.9 of 50 GB/s on the same kind of link (V100 NV2, Dell C4130 in
  // ../shared/reference/measurements.md), so NCCL moves 370 / (450 x 0.958) = 0.858 of the
  // payload rate in all. At 8 GiB each of the H100's 24 channels (NCCL's ring search,
  // nccl_channel_search.hpp) moves 1 MiB slices at 370e9 / 24 B/s, 68.0 us a slice, of which
  // the synchronisation is slice_sync_s (3.5 us): the copy itself runs at
  // 0.858 x 68.0 / (68.0 - 3.5) = 0.905 of the payload rate. Worked out here from the sync
  // constant, so that a leave-one-out build with another sync keeps the same anchor.
  // LL and LL128 keep the all-in 0.858 (their flags travel in the data; no slice sync is
  // simulated for them) times their payload per store.
  constexpr double kAllIn = 370.0 / (450.0 * 0.958);
  constexpr double kH100RingChannels = 24;
  constexpr double kSliceBytes = 1024.0 * 1024.0;
  const double slice_s = kSliceBytes / (370e9 / kH100RingChannels);
  const double simple =
      kAllIn * slice_s / (slice_s - slice_sync_s(Protocol::simple, HwClass::nvlink));
  switch (p) {
    case Protocol::ll:
      return 0.5 * kAllIn;  // 4 B data + 4 B flag per 8 B store
    case Protocol::ll128:
      return 120.0 / 128 * kAllIn;  // 120 B data + 8 B flag per 128 B line
    case Protocol::simple:
      return simple;
  }
  return simple;
}

double network_payload_share(Protocol p) {
  switch (p) {
    case Protocol::ll:
      return 0.5;
    case Protocol::ll128:
      return 120.0 / 128;
    case Protocol::simple:
      return 1.0;
  }
  return 1.0;
}

double ll_max_total_Bps(GpuGeneration g, int nodes, bool amd_cpu) {
  // ../shared/reference/nccl-model.md §2, llMaxBws [generation][min(nNodes - 1, 2)].
  constexpr std::array<std::array<double, 3>, 4> v{
      {{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}, {282, 90, 70}}};
  const std::size_t column = static_cast<std::size_t>(std::min(std::max(nodes, 1) - 1, 2));
  const std::size_t row = nodes <= 1 ? gen_index(g) : (amd_cpu ? 1 : 0);
  return v[row][column] * kGBps;
}

double net_overhead_s(bool amd_cpu) {
  return (amd_cpu ? 2.0 : 1.0) * 1e-6;
}

double ll128_per_channel_Bps(GpuGeneration g) {
  constexpr std::array<double, 4> v{20, 20, 36.7, 40};
  return v[gen_index(g)] * kGBps;
}

double channel_threshold_bytes_per_thread(Protocol p) {
  switch (p) {
    case Protocol::ll:
    case Protocol::ll128:
      return 8.0;
    case Protocol::simple:
      return 64.0;
  }
  return 64.0;
}

int threads_per_channel(Protocol p) {
  switch (p) {
    case Protocol::ll:
      return 512;
    case Protocol::ll128:
      return 640;
    case Protocol::simple:
      return 512;
  }
  return 512;
}

}  // namespace linksim::coll
