// nvbandwidth's testcases on simulated machines: which copies run together, and the figures
// the tool's arithmetic makes of their simulated times (NVIDIA/nvbandwidth v0.8 memcpy.cpp).
#include "sim/coll/nvbandwidth.hpp"

#include <gtest/gtest.h>

#include "sim/topo/loader.hpp"
#include "tests/support/simple_copy_share.hpp"

namespace linksim::coll {
namespace {

constexpr std::uint64_t kBuffer = 536870912;  // the default 512 MiB

const NvbTestcase& testcase(std::string_view key) {
  const auto found = find_nvbandwidth_testcase(key);
  EXPECT_TRUE(found.found) << key;
  return nvbandwidth_testcases()[found.found.value_or(0)];
}

TEST(NvbandwidthTest, TestcasesAreTheToolsInItsOrder) {
  const auto all = nvbandwidth_testcases();
  ASSERT_EQ(all.size(), 35u);
  EXPECT_EQ(all[0].key, "host_to_device_memcpy_ce");
  EXPECT_EQ(all[15].key, "one_to_all_read_ce");
  EXPECT_EQ(all[16].key, "host_to_device_memcpy_sm");
  EXPECT_EQ(all[34].key, "device_local_copy");
  EXPECT_EQ(*find_nvbandwidth_testcase("device_to_device_memcpy_read_ce").found, 4u);
  // strtol() reads a whole number as an index, so "4" and " +4" are testcase 4.
  EXPECT_EQ(*find_nvbandwidth_testcase("4").found, 4u);
  EXPECT_EQ(*find_nvbandwidth_testcase(" +4").found, 4u);
  EXPECT_TRUE(find_nvbandwidth_testcase("35").by_index);
  EXPECT_FALSE(find_nvbandwidth_testcase("35").found);
  EXPECT_FALSE(find_nvbandwidth_testcase("-1").found);
  EXPECT_FALSE(find_nvbandwidth_testcase("4x").by_index);
  EXPECT_FALSE(find_nvbandwidth_testcase("4x").found);
}

TEST(NvbandwidthTest, StreamFigureIsTheToolsIntegerArithmetic) {
  // 1 GB in 16 copies over 1.0000009 s: the float event time is 1000.0009 ms, 1000000 whole
  // us, so 1e9 x 16 x 1e6 / 1000000 = 16e9 B/s.
  EXPECT_EQ(nvbandwidth_stream_Bps(1'000'000'000, 16, 1.0000009), 16'000'000'000ull);
  // 1.5 us is 1 whole us: 1000 x 1 x 1e6 / 1 = 1e9.
  EXPECT_EQ(nvbandwidth_stream_Bps(1000, 1, 1.5e-6), 1'000'000'000ull);
}

TEST(NvbandwidthTest, SmCopiesTruncateToWholeElementsPerThread) {
  // RTX 3090, 82 SMs: 82 x 512 = 41984 threads; 512 MiB is 33554432 16-byte elements,
  // 41984 x floor(33554432 / 41984) = 41984 x 799 = 33545216 elements = 536723456 bytes.
  EXPECT_EQ(nvbandwidth_copy_bytes(kBuffer, CopyInitiator::sm, 82), 536723456u);
  EXPECT_EQ(nvbandwidth_copy_bytes(kBuffer, CopyInitiator::ce, 82), kBuffer);
  // Under 64 MiB a simple kernel copies every element; an unknown SM count truncates nothing.
  EXPECT_EQ(nvbandwidth_copy_bytes(32u << 20, CopyInitiator::sm, 82), 32u << 20);
  EXPECT_EQ(nvbandwidth_copy_bytes(kBuffer, CopyInitiator::sm, 0), kBuffer);
}

TEST(NvbandwidthTest, HostToDeviceOverPcieGen3) {
  const auto t = topo::load_topology("rtx2080ti-2x");
  const NvbResult r = run_nvbandwidth(t, testcase("host_to_device_memcpy_ce"));
  ASSERT_FALSE(r.waived);
  ASSERT_EQ(r.matrices.size(), 1u);
  const NvbMatrix& m = r.matrices[0];
  EXPECT_EQ(m.key, "host_to_device_memcpy_ce");
  EXPECT_EQ(m.description, "memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)");
  ASSERT_EQ(m.rows, 1);
  ASSERT_EQ(m.columns, 2);
  // Host memory of cpu1 -> plx0 -> gpu0: two PCIe 3.0 x16 links, 16 GB/s x 0.82 = 13.12 GB/s
  // payload, 0.25 us each. Each of 16 copies: 1.3 us launch + 0.5 us + 536870912 B / 13.12 GB/s
  // (40920.039 us) = 40921.839 us; 16 of them 654749.42 us, 654749 whole us.
  // 536870912 x 16 x 1e6 / 654749 = 13119431403 B/s -> 13.119431403 GB/s.
  EXPECT_DOUBLE_EQ(*m.at(0, 0), 536870912ull * 16 * 1000000 / 654749 * 1e-9);
  EXPECT_DOUBLE_EQ(*m.at(0, 1), *m.at(0, 0));
  // One measurement per GPU; each of its 3 samples is that stream's figure.
  ASSERT_EQ(r.measurements.size(), 2u);
  ASSERT_EQ(r.measurements[0].streams.size(), 1u);
  EXPECT_EQ(r.measurements[0].streams[0].src_gpu, -1);
  EXPECT_EQ(r.measurements[0].streams[0].dst_gpu, 0);
}

TEST(NvbandwidthTest, HostToAllSharesTheSwitchUplink) {
  const auto t = topo::load_topology("rtx2080ti-2x");
  NvbOptions one_copy;
  one_copy.loop_count = 1;
  const NvbResult r = run_nvbandwidth(t, testcase("host_to_all_memcpy_ce"), one_copy);
  const NvbMatrix& m = r.matrices[0];
  // Both GPUs sit behind plx0, whose one uplink to cpu1 carries 13.12 GB/s: the measured copy
  // (512 MiB to GPU0) and the interfering one (1 GiB to GPU1) share it, 6.56 GB/s each, and the
  // measured one ends first: 1.8 us + 536870912 / 6.56e9 s = 81841.878 us, 81841 whole us.
  // 536870912 x 1 x 1e6 / 81841 = 6559926100 B/s.
  EXPECT_DOUBLE_EQ(*m.at(0, 0), 536870912ull * 1000000 / 81841 * 1e-9);
  ASSERT_EQ(r.measurements[0].streams.size(), 2u);
  EXPECT_EQ(r.measurements[0].streams[1].dst_gpu, 1);
  // Alone it would get the whole uplink: about twice as much.
  const NvbResult alone = run_nvbandwidth(t, testcase("host_to_device_memcpy_ce"), one_copy);
  EXPECT_NEAR(*alone.matrices[0].at(0, 0) / *m.at(0, 0), 2.0, 1e-3);
}

TEST(NvbandwidthTest, PeerCopiesOnlyBetweenAccessiblePairs) {
  // Four RTX 3090s, NVLink bridges on 0-2 and 1-3, no PCIe P2P (GeForce).
  const auto t = topo::load_topology("rtx3090-4x-nvlink-pairs");
  const NvbResult r = run_nvbandwidth(t, testcase("device_to_device_memcpy_read_ce"));
  ASSERT_FALSE(r.waived);
  const NvbMatrix& m = r.matrices[0];
  EXPECT_EQ(m.description, "memcpy CE GPU(row) -> GPU(column) bandwidth (GB/s)");
  ASSERT_EQ(m.rows, 4);
  ASSERT_EQ(m.columns, 4);
  EXPECT_FALSE(m.at(0, 0));
  EXPECT_FALSE(m.at(0, 1));
  EXPECT_FALSE(m.at(0, 3));
  // GPU2 -> GPU0 over the bridge (NVLink 3): 56.25 GB/s x 0.866 = 48.721 GB/s payload, 0.2 us.
  // Each copy 1.3 + 0.2 us + 536870912 / 48.721e9 s (11019.284 us); 16 of them 176332.540 us,
  // 176332 whole us: 536870912 x 16 x 1e6 / 176332 = 48714553183 B/s.
  EXPECT_DOUBLE_EQ(*m.at(0, 2), 536870912ull * 16 * 1000000 / 176332 * 1e-9);
  EXPECT_DOUBLE_EQ(*m.at(2, 0), *m.at(0, 2));
  EXPECT_DOUBLE_EQ(*m.at(1, 3), *m.at(0, 2));
}

TEST(NvbandwidthTest, BidirectionalPeerCopiesReportEachWayAndTheirTotal) {
  const auto t = topo::load_topology("rtx3090-4x-nvlink-pairs");
  const NvbResult r =
      run_nvbandwidth(t, testcase("device_to_device_bidirectional_memcpy_write_ce"));
  ASSERT_EQ(r.matrices.size(), 3u);
  EXPECT_EQ(r.matrices[0].key, "device_to_device_bidirectional_memcpy_write_ce_write1");
  EXPECT_EQ(r.matrices[2].key, "device_to_device_bidirectional_memcpy_write_ce_total");
  EXPECT_EQ(r.matrices[1].description,
            "memcpy CE GPU(row) <-> GPU(column) Write2 bandwidth (GB/s)");
  // Each direction of the bridge is its own capacity: both copies run as fast as one alone
  // (48.714553183 GB/s, as above), and the total is their sum.
  const double one_way = 536870912ull * 16 * 1000000 / 176332 * 1e-9;
  EXPECT_DOUBLE_EQ(*r.matrices[0].at(0, 2), one_way);
  EXPECT_DOUBLE_EQ(*r.matrices[1].at(0, 2), one_way);
  EXPECT_DOUBLE_EQ(*r.matrices[2].at(0, 2), one_way + one_way);
  EXPECT_FALSE(r.matrices[2].at(0, 1));
}

TEST(NvbandwidthTest, AllToOneReportsTotalBytesOverTheLastEnd) {
  const auto t = topo::load_topology("rtx3090-4x-nvlink-pairs");
  const NvbResult r = run_nvbandwidth(t, testcase("all_to_one_write_ce"));
  const NvbMatrix& m = r.matrices[0];
  EXPECT_EQ(m.description, "memcpy CE GPU(row) <- GPU(column) bandwidth (GB/s)");
  // GPU0's only peer is GPU2: one stream of 16 x (1.5 us + 536870912 / 48.721e9 s), as
  // above, but the total keeps the float event time's fraction of a microsecond:
  // 536870912 x 16 x 1e6 / 176332.54... us.
  ASSERT_TRUE(r.measurements[0].total_GBps);
  const double elapsed_s =
      16 * (1.5e-6 + 536870912 / (56.25e9 * linksim::testing::kNvlink3Payload));
  const double elapsed_us = static_cast<double>(static_cast<float>(elapsed_s * 1e3)) * 1000.0;
  EXPECT_DOUBLE_EQ(*m.at(0, 0), 536870912.0 * 16 * 1000 * 1000 / elapsed_us * 1e-9);
  EXPECT_NEAR(*m.at(0, 0), 48.7144, 1e-4);
}

TEST(NvbandwidthTest, DeviceLocalCopyCountsTheBytesOnce) {
  const auto t = topo::load_topology("rtx3090-4x-nvlink-pairs");
  const NvbResult r = run_nvbandwidth(t, testcase("device_local_copy"));
  const NvbMatrix& m = r.matrices[0];
  EXPECT_EQ(m.description, "memcpy local GPU(column) bandwidth (GB/s)");
  // 936 GB/s x 0.8 (read + write) / 2 = 374.4 GB/s for the bytes the tool counts. Each copy
  // 1.3 us + 536870912 / 374.4e9 s (1433.950 us); 16 of them 22964.0014 us, 22964 whole us.
  EXPECT_DOUBLE_EQ(*m.at(0, 3), 536870912ull * 16 * 1000000 / 22964 * 1e-9);
}

TEST(NvbandwidthTest, SmHostCopyIsOneKernelOverTheTruncatedBuffer) {
  const auto t = topo::load_topology("rtx2080ti-2x");
  const NvbResult r = run_nvbandwidth(t, testcase("host_to_device_memcpy_sm"));
  EXPECT_EQ(r.matrices[0].description, "memcpy SM CPU(row) -> GPU(column) bandwidth (GB/s)");
  // 68 SMs x 512 threads = 34816; floor(33554432 / 34816) = 963 -> 33527808 elements =
  // 536444928 bytes. One launch (1.3 us) + 0.5 us + 16 x 536444928 / 13.12e9 s = 654202.93
  // us, 654202 whole us: 536444928 x 16 x 1e6 / 654202 = 13119982586 B/s.
  EXPECT_DOUBLE_EQ(*r.matrices[0].at(0, 0), 536444928ull * 16 * 1000000 / 654202 * 1e-9);
}

TEST(NvbandwidthTest, SplitWarpReportsHalfTheKernelsRate) {
  const auto t = topo::load_topology("rtx2080ti-2x");
  NvbOptions one_copy;
  one_copy.loop_count = 1;
  const NvbResult r =
      run_nvbandwidth(t, testcase("device_to_host_bidirectional_memcpy_sm"), one_copy);
  // Half the buffer each way, both at 13.12 GB/s (two directions of the same links): 1.3 us +
  // 0.5 us + 268435456 / 13.12e9 s (20460.019 us) = 20461.819 us, 20461 whole us; the kernel's
  // 536870912 B over it, halved: 536870912 x 1e6 / 20461 / 2 (integer) B/s.
  EXPECT_DOUBLE_EQ(*r.matrices[0].at(0, 0), 536870912ull * 1000000 / 20461 / 2 * 1e-9);
  EXPECT_EQ(r.measurements[0].streams[0].src_gpu, -1);
}

TEST(NvbandwidthTest, WaivedWithoutPeersOrAModel) {
  const auto t = topo::load_topology("rtx2080ti-2x");  // no P2P between its two GPUs
  EXPECT_TRUE(run_nvbandwidth(t, testcase("device_to_device_memcpy_write_ce")).waived);
  EXPECT_TRUE(run_nvbandwidth(t, testcase("one_to_all_read_sm")).waived);
  EXPECT_TRUE(run_nvbandwidth(t, testcase("host_device_latency_sm")).waived);
  EXPECT_FALSE(run_nvbandwidth(t, testcase("all_to_host_memcpy_ce")).waived);
}

TEST(NvbandwidthTest, MeanOfEqualSamplesIsTheSample) {
  const auto t = topo::load_topology("rtx2080ti-2x");
  NvbOptions mean;
  mean.use_mean = true;
  mean.samples = 4;
  const auto a = run_nvbandwidth(t, testcase("device_to_host_memcpy_ce"), mean);
  const auto b = run_nvbandwidth(t, testcase("device_to_host_memcpy_ce"));
  // (x + x + x + x) / 4 is x exactly for these values.
  EXPECT_DOUBLE_EQ(*a.matrices[0].at(0, 1), *b.matrices[0].at(0, 1));
}

}  // namespace
}  // namespace linksim::coll
