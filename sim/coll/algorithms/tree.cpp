// Tree: NCCL's double binary tree between nodes, a chain inside one (nccl src/graph/trees.cc).
// On one node, as here, all-reduce reduces towards one end of the chain while the result
// streams back, both pipelined: every hop carries the buffer in both directions at once.
#include <array>
#include <vector>

#include "sim/coll/algorithm.hpp"

namespace linksim::coll {
namespace {

using engine::TaskId;

constexpr double kUs = 1e-6;
constexpr double kGBps = 1e9;

// ../shared/reference/nccl-model.md §2, tuning.cc @5067397c, microseconds [LL, LL128, Simple].
constexpr std::array<double, 3> kBaseLatency_us{6.8, 14.0, 8.4};
// hwLatencies for Tree, by class [NVLINK, PCI, NET], then [LL, LL128, Simple].
constexpr std::array<std::array<double, 3>, 3> kHopLatency_us{
    {{.6, 1.25, 4.0}, {1.0, 1.9, 4.0}, {5.0, 8.5, 14}}};
// perChMaxTreeBw, one node, by generation [Volta, Ampere, Hopper, Blackwell], GB/s: Tree
// Simple's per-channel throughput cap.
constexpr std::array<double, 4> kPerChannelSimple_GBps{26.5, 24.0, 38.7, 70.0};
// maxThreads: Tree always runs 640 threads per channel.
constexpr int kThreadsPerChannel = 640;

std::size_t index(Protocol p) {
  return static_cast<std::size_t>(p);  // ll, ll128, simple: the tables' column order
}

class TreeAlgorithm final : public CollectiveAlgorithm {
 public:
  std::string_view name() const override { return Algorithm::tree.name(); }

  std::vector<Op> operations() const override { return {Op::all_reduce}; }

  std::optional<std::string> why_ineligible(const Communicator& /*comm*/) const override {
    return std::nullopt;  // a chain through the ranks always exists
  }

  int channels(const Communicator& comm, Protocol p, double bytes) const override {
    return nccl_channel_count(comm, kThreadsPerChannel, channel_threshold_bytes_per_thread(p),
                              bytes);
  }

  double base_latency_s(Protocol p) const override { return kBaseLatency_us[index(p)] * kUs; }

  double hop_latency_s(Protocol p, HwClass c) const override {
    return kHopLatency_us[static_cast<std::size_t>(c)][index(p)] * kUs;
  }

  double rank_cap_Bps(const Communicator& comm, Protocol p, int channels) const override {
    if (p != Protocol::simple) return CollectiveAlgorithm::rank_cap_Bps(comm, p, channels);
    return channels * (kPerChannelSimple_GBps[static_cast<std::size_t>(comm.generation())] * kGBps);
  }

  TaskId lower(Lowering& l, TaskId start) const override {
    const auto& order = l.comm().rings().front().order;
    const int n = l.comm().size();
    // The pipeline fills over the chain's 2(n-1) hops up and back; each send pays the last.
    const TaskId fill = l.sim().add_delay(l.hop_s() * (2 * (n - 1) - 1), {&start, 1});
    std::vector<TaskId> hops;
    for (std::size_t i = 0; i + 1 < order.size(); ++i) {
      hops.push_back(l.send(order[i + 1], order[i], l.request().size_bytes, {&fill, 1}));
      hops.push_back(l.send(order[i], order[i + 1], l.request().size_bytes, {&fill, 1}));
    }
    return l.sim().add_barrier(hops);
  }
};

}  // namespace

namespace algorithms {
const CollectiveAlgorithm& tree() {
  static const TreeAlgorithm instance;
  return instance;
}
}  // namespace algorithms

}  // namespace linksim::coll
