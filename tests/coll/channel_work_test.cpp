// How NCCL spreads a collective over its channels (channel_work.hpp), by hand from enqueue.cc's
// scheduleCollTasksToPlan (2.22 and later) and NVLS's block rule (2.21 and earlier), and what
// that does to an NVLS all-reduce's copies.
#include "sim/coll/channel_work.hpp"

#include <gtest/gtest.h>

#include <utility>

#include "sim/coll/collective_sim.hpp"
#include "sim/coll/communicator.hpp"
#include "sim/coll/pipeline_constants.hpp"
#include "sim/topo/loader.hpp"

namespace linksim::coll {
namespace {

constexpr double KiB = 1024.0;

// (channels that carry data, bytes on the busiest): what each case below is held to.
using Split = std::pair<int, double>;

Split cells(double bytes, int channels, Protocol p = Protocol::simple) {
  const ChannelWork w = cell_channel_work(bytes, channels, Op::all_reduce, p, 8);
  return {w.channels, w.busiest_bytes};
}

Split blocks(double bytes) {  // 16 channels, 8 heads, 16 KiB chunks
  const ChannelWork w = nvls_block_channel_work(bytes, 16, 8, 16 * KiB);
  return {w.channels, w.busiest_bytes};
}

TEST(ChannelWorkTest, CellsOfThirtyTwoKiBOfTraffic) {
  // All-reduce: 2 bytes of traffic a byte, so a cell is 32 KiB / 2 = 16 KiB of data.
  // 64 KiB on 16 channels: 4 cells; 128 KiB of traffic / 16 = 8 KiB a channel, under one
  // cell's 32 KiB, so a cell a channel: 4 channels of 16 KiB.
  EXPECT_EQ(cells(64 * KiB, 16), Split(4, 16 * KiB));
  // 1 MiB: 64 cells; 2 MiB of traffic / 16 = 128 KiB a channel = 4 cells: first 4, then
  // (64 - 4) / 4 = 15 middle channels with nothing left, so the last middle one becomes the
  // last: 16 channels of 64 KiB.
  EXPECT_EQ(cells(1024 * KiB, 16), Split(16, 64 * KiB));
  // 1 MiB + 16 KiB: 65 cells; traffic 2,129,920 / 16 = 133,120 a channel, over 4 cells' 131,072,
  // so 5 cells a channel: first 5, (65 - 5) / 5 = 12 middle, none left, so 11 middle and a last
  // of 5: 13 channels of 80 KiB, three idle.
  EXPECT_EQ(cells(1040 * KiB, 16), Split(13, 80 * KiB));
  // A message under one cell: one channel with all of it.
  EXPECT_EQ(cells(1 * KiB, 16), Split(1, 1 * KiB));
  // LL counts four times the traffic: cells of 32 KiB / 8 = 4 KiB; 64 KiB is 16 cells, 512 KiB
  // of traffic / 16 = 32 KiB a channel = one cell: 16 channels of 4 KiB.
  EXPECT_EQ(cells(64 * KiB, 16, Protocol::ll), Split(16, 4 * KiB));
  // One channel takes everything.
  EXPECT_EQ(cells(1024 * KiB, 1), Split(1, 1024 * KiB));
}

TEST(ChannelWorkTest, NvlsBlocksOfHeadsTimesChunk) {
  // 8 heads x 16 KiB chunks: blocks of 128 KiB, loops of 16 x 128 KiB = 2 MiB.
  // 64 KiB: one channel with all of it; 256 KiB: two full blocks.
  EXPECT_EQ(blocks(64 * KiB), Split(1, 64 * KiB));
  EXPECT_EQ(blocks(256 * KiB), Split(2, 128 * KiB));
  // 5 MiB: two whole loops (every channel 2 blocks) and 1 MiB more, which channels 0-7 take a
  // block of: the first channel moves 3 x 128 KiB.
  EXPECT_EQ(blocks(5 * 1024 * KiB), Split(16, 384 * KiB));
}

TEST(ChannelWorkTest, NvlsCopiesRunAtTheActiveChannelsRate) {
  // A 64 KiB NVLS all-reduce on 8 H100s is one loop of 16 KiB chunks either way. NCCL 2.18.5
  // puts it on one channel, 2.30.7 on four of 16 KiB; the NVLink traffic and every latency are
  // the same, only the scatter and the gather copy at one channel's rate r =
  // nvls_copy_per_channel_Bps() or at four's. So the difference is
  // 2 x 65536 / r - 2 x 65536 / (4 r) = 2 x 65536 x 3 / (4 r).
  const topo::Topology t = topo::load_topology("dgx-h100");
  const Communicator comm(t, t.nodes_of(topo::NodeKind::gpu));
  Request r;
  r.op = Op::all_reduce;
  r.size_bytes = 64 * KiB;
  const Choice nvls{Algorithm::nvls, Protocol::simple, 16};
  r.nccl_version = 21805;
  const double blocks_s = simulate_choice(comm, r, nvls).time_s;
  r.nccl_version = 23007;
  const double cells_s = simulate_choice(comm, r, nvls).time_s;
  EXPECT_NEAR(blocks_s - cells_s, 2 * 65536 * 3 / (4 * nvls_copy_per_channel_Bps()), 1e-12);
}

}  // namespace
}  // namespace linksim::coll
