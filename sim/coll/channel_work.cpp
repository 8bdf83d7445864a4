#include "sim/coll/channel_work.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace linksim::coll {
namespace {

using Count = std::int64_t;

Count divide_up(Count a, Count b) {
  return (a + b - 1) / b;
}

Count round_up16(Count a) {
  return divide_up(a, 16) * 16;
}

// ncclFuncTrafficPerByte (enqueue.cc), times 4 for LL (its lines carry half data, half flags,
// and the scheduler counts their traffic so).
Count traffic_per_byte(Op op, Protocol p, int ranks) {
  Count t = 1;
  if (op == Op::all_reduce) t = 2;
  if (op == Op::all_gather || op == Op::reduce_scatter) t = std::max(1, ranks);
  return p == Protocol::ll ? 4 * t : t;
}

}  // namespace

ChannelWork cell_channel_work(double bytes, int channels, Op op, Protocol p, int ranks) {
  constexpr Count kMinTrafficPerChannel = 32 << 10;
  const Count size = std::max<Count>(1, static_cast<Count>(std::ceil(bytes)));
  const Count most = std::max(1, channels);
  const Count per_byte = traffic_per_byte(op, p, ranks);
  const Count cell = round_up16(divide_up(kMinTrafficPerChannel, per_byte));
  const Count cells = divide_up(size, cell);
  const Count traffic = std::max(kMinTrafficPerChannel, size * per_byte);
  const Count traffic_per_channel = round_up16(traffic / most);
  const Count traffic_per_cell = cell * per_byte;
  Count cells_per_channel = std::min(cells, divide_up(traffic_per_channel, traffic_per_cell));
  // The first channel takes what its share of the traffic needs (everything if it is the only
  // one), the middle ones cells_per_channel each, the last the rest.
  const Count cells_lo = most == 1 ? cells : cells_per_channel;
  Count n_mid = (cells - cells_lo) / cells_per_channel;
  Count cells_hi = (cells - cells_lo) % cells_per_channel;
  const Count wanted = (cells_lo != 0 ? 1 : 0) + n_mid + (cells_hi != 0 ? 1 : 0);
  if (most < wanted) {  // more than the channels: the rest is spread over those left
    n_mid = most - 2;
    cells_per_channel = (cells - cells_lo) / (n_mid + 1);
    cells_hi = cells_per_channel + (cells - cells_lo) % (n_mid + 1);
  }
  if (cells_hi == 0 && n_mid != 0) {
    cells_hi = cells_per_channel;
    n_mid -= 1;
  }
  ChannelWork work;
  work.channels = static_cast<int>((cells_lo != 0 ? 1 : 0) + n_mid + (cells_hi != 0 ? 1 : 0));
  const Count busiest = std::max({cells_lo, n_mid != 0 ? cells_per_channel : 0, cells_hi});
  work.busiest_bytes = std::min(bytes, static_cast<double>(busiest * cell));
  return work;
}

ChannelWork nvls_block_channel_work(double bytes, int channels, int heads, double chunk_bytes) {
  const double block = std::max(1, heads) * chunk_bytes;
  const double loop = std::max(1, channels) * block;
  const double full_loops = std::floor(bytes / loop);
  const double rest = bytes - full_loops * loop;
  ChannelWork work;
  work.channels = full_loops > 0 ? std::max(1, channels)
                                 : std::max(1, static_cast<int>(std::ceil(rest / block - 1e-9)));
  work.busiest_bytes = full_loops * block + std::min(block, rest);
  return work;
}

}  // namespace linksim::coll
