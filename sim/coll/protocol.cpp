#include "sim/coll/protocol.hpp"

#include <array>

namespace linksim::coll {
namespace {

constexpr double kUs = 1e-6;
constexpr double kGBps = 1e9;

std::size_t proto_index(Protocol p) {
  switch (p) {
    case Protocol::ll:
      return 0;
    case Protocol::ll128:
      return 1;
    case Protocol::simple:
      return 2;
  }
  return 2;
}

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

double base_latency_s(Algorithm a, Protocol p) {
  // tuning.cc baseLatencies [LL, LL128, Simple], microseconds.
  constexpr std::array<double, 3> tree{6.8, 14.0, 8.4};
  constexpr std::array<double, 3> ring{6.6, 14.0, 8.4};
  switch (a) {
    case Algorithm::tree:
      return tree[proto_index(p)] * kUs;
    case Algorithm::ring:
    case Algorithm::pairwise:
      return ring[proto_index(p)] * kUs;
    case Algorithm::nvls:
      return 0;  // NVLS's latency is all in its hop term
  }
  return 0;
}

double hop_latency_s(Algorithm a, Protocol p, HwClass c) {
  // tuning.cc hwLatencies [class][algo][LL, LL128, Simple], microseconds.
  constexpr std::array<std::array<double, 3>, 3> tree{
      {{.6, 1.25, 4.0}, {1.0, 1.9, 4.0}, {5.0, 8.5, 14}}};
  constexpr std::array<std::array<double, 3>, 3> ring{
      {{.6, 1.9, 3.4}, {1.0, 2.5, 5.7}, {2.7, 4.0, 14.0}}};
  constexpr std::array<std::array<double, 3>, 3> nvls{{{0, 0, 25}, {0, 0, 0}, {0, 0, 18}}};
  const auto ci = static_cast<std::size_t>(c);
  const auto pi = proto_index(p);
  switch (a) {
    case Algorithm::tree:
      return tree[ci][pi] * kUs;
    case Algorithm::ring:
    case Algorithm::pairwise:
      return ring[ci][pi] * kUs;
    case Algorithm::nvls:
      return nvls[ci][pi] * kUs;
  }
  return 0;
}

double wire_efficiency(Protocol p) {
  // Simple's synchronisation (fences, flags, an extra warp) costs ~14%: NVIDIA's maintainer
  // puts NCCL at "370GB/s" of the H100's 450 GB/s line rate, "protocol overhead (~20%)"
  // (nccl-tests#212); copy engines reach 47.9 of 50 GB/s on the same kind of link (V100 NV2,
  // Dell C4130 in ../shared/reference/measurements.md), so the protocol's own share is
  // 370 / (450 x 0.958) = 0.857. LL and LL128 carry less payload per store on top of that.
  constexpr double kSimple = 370.0 / (450.0 * 0.958);
  switch (p) {
    case Protocol::ll:
      return 0.5 * kSimple;  // 4 B data + 4 B flag per 8 B store
    case Protocol::ll128:
      return 120.0 / 128 * kSimple;  // 120 B data + 8 B flag per 128 B line
    case Protocol::simple:
      return kSimple;
  }
  return kSimple;
}

double ll_max_total_Bps(GpuGeneration g) {
  constexpr std::array<double, 4> v{39.0, 87.7, 141.0, 282};
  return v[gen_index(g)] * kGBps;
}
double ring_ll128_per_channel_Bps(GpuGeneration g) {
  constexpr std::array<double, 4> v{20, 20, 36.7, 40};
  return v[gen_index(g)] * kGBps;
}
double tree_per_channel_Bps(GpuGeneration g) {
  constexpr std::array<double, 4> v{26.5, 24.0, 38.7, 70.0};
  return v[gen_index(g)] * kGBps;
}
double nvls_efficiency(GpuGeneration g) {
  constexpr std::array<double, 4> v{0, 0, 0.85, 0.74};
  return v[gen_index(g)];
}

double channel_threshold_bytes(Algorithm a, Protocol p, int ranks) {
  // comm.h: LL 8 B per thread (Ring LL x nRanks), LL128 8, Simple 64.
  switch (p) {
    case Protocol::ll:
      return a == Algorithm::ring ? 8.0 * ranks : 8.0;
    case Protocol::ll128:
      return 8.0;
    case Protocol::simple:
      return 64.0;
  }
  return 64.0;
}

int threads_per_channel(Algorithm a, Protocol p) {
  if (a == Algorithm::tree || a == Algorithm::nvls) return 640;
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
