// Ring: NCCL's default for every operation but all-to-all. Each channel is a ring of the ranks;
// all-reduce is a reduce-scatter then an all-gather round it, 2(n-1) steps of S/n per rank
// (nccl src/device/all_reduce.h runRing); all-gather and reduce-scatter are n-1 steps;
// broadcast and reduce stream the buffer along one ring, as a pipelined chain.
#include <algorithm>
#include <array>
#include <vector>

#include "sim/coll/algorithm.hpp"

namespace linksim::coll {
namespace {

using engine::TaskId;

constexpr double kUs = 1e-6;

// ../shared/reference/nccl-model.md §2, tuning.cc @5067397c, microseconds [LL, LL128, Simple].
constexpr std::array<double, 3> kBaseLatency_us{6.6, 14.0, 8.4};
// hwLatencies for Ring, by class [NVLINK, PCI, NET], then [LL, LL128, Simple].
constexpr std::array<std::array<double, 3>, 3> kHopLatency_us{
    {{.6, 1.9, 3.4}, {1.0, 2.5, 5.7}, {2.7, 4.0, 14.0}}};

std::size_t index(Protocol p) {
  return static_cast<std::size_t>(p);  // ll, ll128, simple: the tables' column order
}

// Past this many ranks a lone collective's identical steps are simulated once (below).
constexpr int kCollapseStepsFromRanks = 1024;

// `steps` ring steps; in each, every rank sends `chunk` bytes to its successor, split over
// the rings. Steps are separated by a barrier: a rank needs the previous chunk first.
TaskId ring_steps(Lowering& l, TaskId start, int steps, double chunk) {
  if (l.alone() && steps > 1 && l.comm().size() >= kCollapseStepsFromRanks) {
    // Every step moves the same bytes between the same ranks on an idle network, so each takes
    // as long as the first: simulate one and stand the others in by its time. Exact when
    // nothing else runs beside the collective, which `alone` promises; it keeps thousands of
    // ranks at one step's transfers instead of 2(n-1) steps' (but the steps' links then carry
    // no load in the main simulation, so no bottleneck is reported).
    engine::Simulation one(l.comm().capacities_Bps(), l.sim().gpu_count());
    Lowering first(l.comm(), l.request(), l.choice(), l.algorithm(), one);
    ring_steps(first, one.add_delay(0, {}), 1, chunk);
    engine::RunOptions options;
    options.record_intervals = false;
    const double step_s = one.run(options).makespan_s;
    return l.sim().add_delay(steps * step_s, {&start, 1});
  }
  const auto& rings = l.comm().rings();
  const double per_ring = chunk / static_cast<double>(rings.size());
  TaskId prev = start;
  std::vector<TaskId> step_tasks;
  for (int k = 0; k < steps; ++k) {
    step_tasks.clear();
    for (const auto& ring : rings) {
      const std::size_t n = ring.order.size();
      for (std::size_t i = 0; i < n; ++i) {
        step_tasks.push_back(l.send(ring.order[i], ring.order[(i + 1) % n], per_ring, {&prev, 1}));
      }
    }
    prev = l.sim().add_barrier(step_tasks);
  }
  return prev;
}

// A pipelined chain along the first ring, starting at the root (broadcast) or ending there
// (reduce): every hop streams the whole buffer at once, after the pipeline fills.
TaskId chain(Lowering& l, TaskId start, double bytes, bool towards_root) {
  const auto& order = l.comm().rings().front().order;
  const int n = l.comm().size();
  const auto root_pos = std::find(order.begin(), order.end(), l.request().root) - order.begin();
  std::vector<int> seq;
  for (int i = 0; i < n; ++i)
    seq.push_back(order[static_cast<std::size_t>((root_pos + i) % n)]);
  if (towards_root) std::reverse(seq.begin(), seq.end());
  const TaskId fill = l.sim().add_delay(l.hop_s() * (n - 2 > 0 ? n - 2 : 0), {&start, 1});
  std::vector<TaskId> hops;
  for (std::size_t i = 0; i + 1 < seq.size(); ++i)
    hops.push_back(l.send(seq[i], seq[i + 1], bytes, {&fill, 1}));
  return l.sim().add_barrier(hops);
}

class RingAlgorithm final : public CollectiveAlgorithm {
 public:
  std::string_view name() const override { return Algorithm::ring.name(); }

  std::vector<Op> operations() const override {
    return {Op::all_reduce, Op::all_gather, Op::reduce_scatter, Op::broadcast, Op::reduce};
  }

  std::optional<std::string> why_ineligible(const Communicator& /*comm*/) const override {
    return std::nullopt;  // any group of ranks that reach each other forms rings
  }

  int channels(const Communicator& comm, Protocol p, double bytes) const override {
    // comm.h: Ring LL's threshold is per rank (x nRanks).
    const double threshold = channel_threshold_bytes_per_thread(p) *
                             (p == Protocol::ll ? static_cast<double>(comm.size()) : 1.0);
    return nccl_channel_count(comm, threads_per_channel(p), threshold, bytes);
  }

  double base_latency_s(Protocol p) const override { return kBaseLatency_us[index(p)] * kUs; }

  double hop_latency_s(Protocol p, HwClass c) const override {
    return kHopLatency_us[static_cast<std::size_t>(c)][index(p)] * kUs;
  }

  TaskId lower(Lowering& l, TaskId start) const override {
    const int n = l.comm().size();
    const double s = l.request().size_bytes;
    switch (l.request().op) {
      case Op::all_reduce:
        return ring_steps(l, start, 2 * (n - 1), s / n);
      case Op::all_gather:
      case Op::reduce_scatter:
        return ring_steps(l, start, n - 1, s / n);
      case Op::broadcast:
        return chain(l, start, s, /*towards_root=*/false);
      case Op::reduce:
        return chain(l, start, s, /*towards_root=*/true);
      case Op::alltoall:
      case Op::sendrecv:
      case Op::scatter:
      case Op::gather:
      case Op::alltoallv:
      case Op::hypercube:
        break;
    }
    return start;  // not served (see operations())
  }
};

}  // namespace

namespace algorithms {
const CollectiveAlgorithm& ring() {
  static const RingAlgorithm instance;
  return instance;
}
}  // namespace algorithms

}  // namespace linksim::coll
