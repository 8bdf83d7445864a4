// Ring: NCCL's default for every operation but all-to-all. Each channel is a ring of the ranks;
// all-reduce is a reduce-scatter then an all-gather round it, 2(n-1) steps of S/n per rank
// (nccl src/device/all_reduce.h runRing); all-gather and reduce-scatter are n-1 steps;
// broadcast and reduce stream the buffer along one ring, as a pipelined chain.
#include <algorithm>
#include <array>
#include <vector>

#include "sim/coll/algorithm.hpp"
#include "sim/coll/slice_pipeline.hpp"

namespace linksim::coll {
namespace {

using engine::TaskId;

constexpr double kUs = 1e-6;
constexpr double kGBps = 1e9;

// ../shared/reference/nccl-model.md §2, tuning.cc @5067397c, microseconds [LL, LL128, Simple].
constexpr std::array<double, 3> kBaseLatency_us{6.6, 14.0, 8.4};
// hwLatencies for Ring, by class [NVLINK, PCI, NET], then [LL, LL128, Simple].
constexpr std::array<std::array<double, 3>, 3> kHopLatency_us{
    {{.6, 1.9, 3.4}, {1.0, 2.5, 5.7}, {2.7, 4.0, 14.0}}};

std::size_t index(Protocol p) {
  return static_cast<std::size_t>(p);  // ll, ll128, simple: the tables' column order
}

// Past this many ranks, or this many sends per loop (rings x ranks x steps: two NVL72 racks
// have 72 rings of 144 ranks, about 3 million), a lone collective's steps are simulated in bulk
// (below) instead of slice by slice: the sliced form would take minutes, and on so many ranks
// its fill and drain are a small share of the time. The budget keeps every reference cluster
// (p3dn x8: 8 rings x 64 ranks x 126 steps) sliced.
constexpr int kCollapseStepsFromRanks = 1024;
constexpr double kMaxSlicedSendsPerLoop = 100'000;

// Whether a lone ring of `steps` steps is simulated in bulk.
bool collapses_steps(const Lowering& l, int steps) {
  const double sends = static_cast<double>(l.comm().rings().size()) * l.comm().size() * steps;
  return l.comm().size() >= kCollapseStepsFromRanks || sends > kMaxSlicedSendsPerLoop;
}

// `steps` ring steps of `chunk` bytes per rank, in bulk: every rank streams all its steps to its
// successor at once, as NCCL's ring keeps each of its links busy from the first step to the last
// (the chain below streams the same way). The steps' hop latencies come first, each the slowest
// hop's, as a ring step waits for its slowest hop. On an idle network this takes what `steps`
// barrier-separated steps take: max-min rates do not depend on bytes, so moving `steps` times
// the bytes takes `steps` times as long (exact where every hop has one latency; where hops
// differ the barriers' in-step stagger is left out). Beside other traffic it is one set of flows
// per ring rather than one per step: a job's ring all-reduce across nodes had 2(n - 1) rounds of
// flows ending at different moments, each a solve of every flow in the job.
TaskId bulk_ring_steps(Lowering& l, TaskId start, int steps, double chunk) {
  const auto& rings = l.comm().rings();
  const double per_ring = chunk / static_cast<double>(rings.size());
  double slowest_hop_s = 0;
  for (const auto& ring : rings) {
    const std::size_t n = ring.order.size();
    for (std::size_t i = 0; i < n; ++i) {
      const int from = ring.order[i];
      const int to = ring.order[(i + 1) % n];
      slowest_hop_s =
          std::max(slowest_hop_s, l.route_latency_s(from, to) + l.hop_s_between(from, to));
    }
  }
  const TaskId fill =
      steps > 1 ? l.sim().add_delay((steps - 1) * slowest_hop_s, {&start, 1}) : start;
  std::vector<TaskId> sends;
  for (const auto& ring : rings) {
    const std::size_t n = ring.order.size();
    for (std::size_t i = 0; i < n; ++i) {
      sends.push_back(l.send(ring.order[i], ring.order[(i + 1) % n], steps * per_ring, {&fill, 1}));
    }
  }
  return l.sim().add_barrier(sends);
}

// `steps` ring steps; in each, every rank sends `chunk` bytes to its successor, split over the
// rings (one CTA stream each). Step k of a rank forwards what its predecessor sent at step
// k - 1, slice by slice (slice_pipeline.hpp).
TaskId ring_steps(Lowering& l, TaskId start, int steps, double chunk) {
  const auto& rings = l.comm().rings();
  if (!l.by_slices()) return bulk_ring_steps(l, start, steps, chunk);
  if (collapses_steps(l, steps)) return bulk_ring_steps(l, start, steps, chunk);
  const int lanes = static_cast<int>(rings.size());
  const double per_ring = chunk / lanes;
  SlicePipeline pipe(
      ring_chunk_shape(l.choice().protocol, l.request().op, l.comm().simple_step_bytes()),
      std::max(1, l.choice().channels / lanes));
  // Across nodes a ring's network hops go through NCCL's proxy, which keeps up to NCCL_STEPS
  // chunks on the wire: the sending CTA moves on while the NIC's latency is paid.
  if (l.comm().node_count() > 1) pipe.overlap_link_latency();
  const auto n = static_cast<std::size_t>(l.comm().size());
  // last[x][rank]: the rank's send of the previous step on ring x.
  std::vector<std::vector<int>> last(rings.size(), std::vector<int>(n, -1));
  std::vector<int> sent(n, -1);
  for (int k = 0; k < steps; ++k) {
    for (std::size_t x = 0; x < rings.size(); ++x) {
      const auto& order = rings[x].order;
      for (std::size_t i = 0; i < n; ++i) {
        const int from = order[i];
        const int pred = order[(i + n - 1) % n];
        const int before = last[x][static_cast<std::size_t>(pred)];
        sent[static_cast<std::size_t>(from)] =
            pipe.add(from, order[(i + 1) % n], static_cast<int>(x), per_ring,
                     before >= 0 ? std::span<const int>(&before, 1) : std::span<const int>());
      }
      last[x] = sent;
    }
  }
  return pipe.emit(l, start);
}

// A pipelined chain along the first ring, starting at the root (broadcast) or ending there
// (reduce): every hop forwards the buffer slice by slice as it arrives.
TaskId chain(Lowering& l, TaskId start, double bytes, bool towards_root) {
  const auto& order = l.comm().rings().front().order;
  const int n = l.comm().size();
  const auto root_pos = std::find(order.begin(), order.end(), l.request().root) - order.begin();
  std::vector<int> seq;
  for (int i = 0; i < n; ++i)
    seq.push_back(order[static_cast<std::size_t>((root_pos + i) % n)]);
  if (towards_root) std::reverse(seq.begin(), seq.end());
  if (!l.by_slices()) {
    // Steps: every hop streams the whole buffer at once, after the pipeline fills.
    const TaskId fill = l.sim().add_delay(l.hop_s() * (n - 2 > 0 ? n - 2 : 0), {&start, 1});
    std::vector<TaskId> hops;
    for (std::size_t i = 0; i + 1 < seq.size(); ++i)
      hops.push_back(l.send(seq[i], seq[i + 1], bytes, {&fill, 1}));
    return l.sim().add_barrier(hops);
  }
  SlicePipeline pipe(
      ring_chunk_shape(l.choice().protocol, l.request().op, l.comm().simple_step_bytes()),
      l.choice().channels);
  if (l.comm().node_count() > 1) pipe.overlap_link_latency();  // the proxy, as in ring_steps
  int prev = -1;
  for (std::size_t i = 0; i + 1 < seq.size(); ++i) {
    prev = pipe.add(seq[i], seq[i + 1], 0, bytes,
                    prev >= 0 ? std::span<const int>(&prev, 1) : std::span<const int>());
  }
  return pipe.emit(l, start);
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
    return nccl_channel_count(comm, comm.threads_per_channel(p, threads_per_channel(p)), threshold,
                              bytes);
  }

  double base_latency_s(Protocol p) const override { return kBaseLatency_us[index(p)] * kUs; }

  double hop_latency_s(Protocol p, HwClass c) const override {
    return kHopLatency_us[static_cast<std::size_t>(c)][index(p)] * kUs;
  }

  // tuning.cc: busBw = channels x speed (the ring graph's one figure, bwIntra and bwInter);
  // LL at half of it up to llMaxBw, LL128 at 0.92 (0.7 with one GPU per node) up to its
  // per-channel cap; algBw = busBw x n / nsteps. Latency: the base, then each step's hop; across
  // nodes the steps that cross pay the network's (interLat), the others at least NCCL's net
  // overhead (x3 for Simple); broadcast and reduce on the same channels pay one hop.
  std::optional<NcclModelRow> nccl_model_row(const Communicator& /*comm*/,
                                             const NcclModelInputs& in, Op op,
                                             Protocol p) const override {
    const NcclTunerGraph& g = in.ring;
    if (g.channels <= 0) return std::nullopt;
    const int n = in.ranks;
    const int steps = nccl_model_steps(op, n);
    double bus = g.channels * (in.nodes <= 2 ? g.intra_GBps : g.inter_GBps);
    if (p == Protocol::ll) bus = std::min(in.llmax_GBps, bus * .5);
    if (p == Protocol::ll128) {
      bus = std::min(bus * (in.ppn < 2 ? .7 : .92),
                     g.channels * ll128_per_channel_Bps(in.generation) / kGBps);
    }
    NcclModelRow row;
    row.alg_GBps = bus * (static_cast<double>(n) / steps);
    const double intra_us = hop_latency_s(p, g.intra_class) / kUs;
    row.latency_us = base_latency_s(p) / kUs;
    if (op == Op::broadcast || op == Op::reduce) {
      row.latency_us += in.nodes == 1 ? intra_us : hop_latency_s(p, HwClass::net) / kUs;
    } else if (in.nodes == 1) {
      row.latency_us += steps * intra_us;
    } else {
      const int inter = nccl_inter_steps(op, in.nodes);
      const double overhead_us = in.net_overhead_us * (p == Protocol::simple ? 3 : 1);
      row.latency_us += (steps - inter) * std::max(intra_us, overhead_us) +
                        inter * nccl_inter_latency_us(in, id(), p, g);
    }
    return row;
  }

  bool moves_only_over_rank_routes() const override { return true; }

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
