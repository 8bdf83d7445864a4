// Copies as the CUDA samples make them: direct over the peer path, or staged through host
// memory (two DMA legs with a host hand-off between them) when peer access is off.
#include "sim/coll/copy_bench.hpp"

#include <gtest/gtest.h>

#include "sim/topo/loader.hpp"

namespace linksim::coll {
namespace {

// PCIe payload rates (sim/topo/link_payload.hpp: 0.82 of the line rate): Gen3 x16 16 GB/s -> 13.12,
// Gen5 x16 64 GB/s -> 52.48. Every PCIe link's latency defaults to 0.25 us.
constexpr double kGen3x16_Bps = 16e9 * 0.82;
constexpr double kGen5x16_Bps = 64e9 * 0.82;

TEST(CopyBenchTest, StagedCopyOnTheNoP2pPair) {
  const auto t = topo::load_topology("rtx2080ti-2x");
  const CopyMatrices off = p2p_matrices(t, false);
  // GPU0 -> host (gpu0-plx0-cpu1: 2 x 0.25 us) -> GPU1 (cpu1-plx0-gpu1: 2 x 0.25 us):
  //   1.3 us launch + 0.5 us + 160e6 / 13.12e9 + 12.0 us hand-off + 0.5 us + 160e6 / 13.12e9
  //   = 14.3 us + 2 x 12.195122 ms = 24.404544 ms  ->  160e6 / 24.404544 ms = 6.556156 GB/s
  const double staged_s = 14.3e-6 + 2 * kP2pTestBytes / kGen3x16_Bps;
  EXPECT_NEAR(off.uni_Bps[0][1], kP2pTestBytes / staged_s, 1e-6 * off.uni_Bps[0][1]);
  EXPECT_NEAR(off.uni_Bps[0][1], 6.556156e9, 1e3);
  // One int: the same legs at 4 bytes, 14.3 us + 2 x 4 B / 13.12 GB/s (0.0006 us).
  EXPECT_NEAR(off.latency_s[0][1], 14.3e-6 + 8 / kGen3x16_Bps, 1e-12);
  EXPECT_DOUBLE_EQ(off.cpu_latency_s[0][1], kStagedCopyEnqueue_s);
  EXPECT_DOUBLE_EQ(off.cpu_latency_s[0][0], kCopyEnqueue_s);
  // No peer access on this pair: enabling it changes nothing.
  const CopyMatrices on = p2p_matrices(t, true);
  EXPECT_DOUBLE_EQ(on.uni_Bps[0][1], off.uni_Bps[0][1]);
  EXPECT_DOUBLE_EQ(on.cpu_latency_s[0][1], kStagedCopyEnqueue_s);
}

TEST(CopyBenchTest, PeerAccessOffNeverUsesNvlink) {
  const auto t = topo::load_topology("dgx-h100");
  const CopyMatrices off = p2p_matrices(t, false);
  // GPU0 and GPU1 share socket 0, each behind its own PCIe 5.0 x16 switch:
  //   gpu0-pcisw0-cpu0 and cpu0-pcisw1-gpu1, 0.5 us each; 160 MB at 52.48 GB/s per leg:
  //   14.3 us + 2 x 3.0487805 ms = 6.1118610 ms  ->  26.178 GB/s (tens of GB/s, not NVLink's
  //   hundreds).
  const double staged_s = 14.3e-6 + 2 * kP2pTestBytes / kGen5x16_Bps;
  EXPECT_NEAR(off.uni_Bps[0][1], kP2pTestBytes / staged_s, 1e-6 * off.uni_Bps[0][1]);
  EXPECT_NEAR(off.uni_Bps[0][1], 26.178e9, 1e6);
  // Staged latency in the range real NVLink machines measure (11-25 us): 14.3 us.
  EXPECT_NEAR(off.latency_s[0][1], 14.3e-6 + 8 / kGen5x16_Bps, 1e-12);
  // Both ways at once: the legs use the two directions of different links, so nothing is
  // shared and the sum is twice one way.
  EXPECT_NEAR(off.bidi_Bps[0][1], 2 * off.uni_Bps[0][1], 1e-6 * off.bidi_Bps[0][1]);
  // With peer access the copy goes over NVLink: direct, so far above the staged rate.
  const CopyMatrices on = p2p_matrices(t, true);
  EXPECT_GT(on.uni_Bps[0][1], 10 * off.uni_Bps[0][1]);
  EXPECT_DOUBLE_EQ(on.cpu_latency_s[0][1], kCopyEnqueue_s);
  EXPECT_LT(on.latency_s[0][1], off.latency_s[0][1] - kStagedCopyHandoff_s);
}

}  // namespace
}  // namespace linksim::coll
