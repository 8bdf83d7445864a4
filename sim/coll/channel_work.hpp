#pragma once
// How NCCL spreads one collective's bytes over the channels it may use: how many channels (and
// so SMs) carry data, and how much the busiest of them moves. A small message does not reach
// every channel, and what one channel moves is bounded by its own warps.

#include "sim/coll/collective.hpp"

namespace linksim::coll {

struct ChannelWork {
  int channels = 1;          // channels that carry data
  double busiest_bytes = 0;  // data on the busiest of them
};

// NCCL 2.22 and later (enqueue.cc scheduleCollTasksToPlan @5067397c): the data is cut into
// cells of 32 KiB of traffic (an all-reduce counts 2 bytes of traffic a byte, all-gather and
// reduce-scatter one per rank, LL four times that), and each channel takes the cells its share
// of the traffic needs, the first and last channel what is left. A collective of fewer cells
// than channels runs on one channel per cell.
inline constexpr int kCellScheduleSince = 22200;
ChannelWork cell_channel_work(double bytes, int channels, Op op, Protocol p, int ranks);

// NCCL 2.21 and earlier, NVLS (all_reduce.h RunWorkElement<..., NCCL_ALGO_NVLS, ...>
// @v2.18.5-1): each loop covers channels x heads x chunk bytes, and channel b takes the block
// [b x heads x chunk, (b + 1) x heads x chunk) of it, so a message under one loop runs on its
// first ceil(bytes / (heads x chunk)) channels, each with a whole block but the last.
ChannelWork nvls_block_channel_work(double bytes, int channels, int heads, double chunk_bytes);

}  // namespace linksim::coll
