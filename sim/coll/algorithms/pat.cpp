// PAT (Parallel Aggregated Trees, NCCL 2.23+): all-gather and reduce-scatter for one GPU per
// node (nccl src/include/collectives.h PatAGAlgorithm / PatRSAlgorithm, src/device/all_gather.h
// and reduce_scatter.h, prims_simple.h primsModePat*). Every rank's part travels a binomial
// tree rooted at its owner, and the trees of all ranks are aggregated: in each of the
// log2(n) stages (rounded up) a rank talks to one peer at a power-of-two distance and sends it
// every part that peer's subtree still needs. All-gather starts at the farthest distance with
// one part and ends at distance 1 with half of them (it sends to rank - 2^d); reduce-scatter is
// its mirror in time and direction (it sends to rank + 2^d). Each rank sends (n - 1) / n S in
// all, as Ring does, in log2 n network steps instead of n - 1.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <vector>

#include "sim/coll/algorithm.hpp"
#include "sim/coll/slice_pipeline.hpp"

namespace linksim::coll {
namespace {

using engine::TaskId;

constexpr double kUs = 1e-6;

// ../shared/reference/nccl-model.md §2, tuning.cc @5067397c: base latency 8.0 us (every
// protocol, PAT runs Simple only); hwLatencies for PAT, Simple, by class [NVLINK, PCI, NET].
constexpr double kBaseLatency_us = 8.0;
constexpr std::array<double, 3> kHopLatencySimple_us{4.0, 4.0, 14.0};
// tuning.cc's PAT latency is 8.0 + log2(nNodes) x interLat / 3.5 + 2.8 x nRanks: a stage pays
// the network step latency over 3.5, as its aggregated steps overlap their flags ("Log
// latency"), and the schedule's compute thread costs 2.8 us a rank ("Still a linear part").
constexpr double kStageLatencyDivisor = 3.5;
constexpr double kPerRankSchedule_us = 2.8;
// tuning.cc: "if (a == NCCL_ALGO_PAT) busBw *= .75": PAT's workers reach 3/4 of Ring's rate.
constexpr double kBandwidthEfficiency = 0.75;
// enqueue.cc: PAT runs NCCL_MAX_NTHREADS (640) threads; its maxThreads entry is never set, so
// the channel rule keeps every channel (nBytes < nc x 0 x threshold is never true).
// The Simple chunk: one 512 KiB step (buffSizes[Simple] / NCCL_STEPS), halved down to 64 KiB
// while chunk x channels x 32 (all-gather) or x 16 (reduce-scatter) exceeds the message.
constexpr double kStepBytes = 512.0 * 1024;
constexpr double kMinChunkBytes = 64.0 * 1024;

// One stage of the aggregated schedule: every rank sends `parts` parts of S / n to the rank
// `distance` away.
struct Stage {
  int distance = 1;
  int parts = 0;
};

// All-gather's stages, farthest first. The part of owner o sits at rank o + t (t relative);
// at distance d the ranks with t a multiple of 2d hold it and pass it to t + d when t + d < n,
// so a rank sends, whatever its place, one part per such t.
std::vector<Stage> all_gather_stages(int n) {
  int pow2 = 1;
  while (pow2 < n)
    pow2 *= 2;
  std::vector<Stage> out;
  for (int d = pow2 / 2; d >= 1; d /= 2) {
    Stage s{d, 0};
    for (int t = 0; t + d < n; t += 2 * d)
      ++s.parts;
    out.push_back(s);
  }
  return out;
}

// Reduce-scatter runs all-gather's stages backwards (nearest first, the most parts first).
std::vector<Stage> stages_for(Op op, int n) {
  std::vector<Stage> out = all_gather_stages(n);
  if (op == Op::reduce_scatter) std::reverse(out.begin(), out.end());
  return out;
}

// The rank `from` sends to at a stage's `distance`.
int peer(Op op, int n, int from, int distance) {
  return op == Op::all_gather ? (from - distance + n) % n : (from + distance) % n;
}

class PatAlgorithm final : public CollectiveAlgorithm {
 public:
  std::string_view name() const override { return "PAT"; }

  std::vector<Op> operations() const override { return {Op::all_gather, Op::reduce_scatter}; }

  // tuning.cc ncclPatEnable: SM60 or later (every GPU linksim knows is), one GPU per node
  // (nNodes == nRanks), and no device-offload network (linksim's NICs are all host-driven).
  std::optional<std::string> why_ineligible(const Communicator& comm) const override {
    if (comm.size() < 2) return std::string("PAT needs at least 2 GPUs; here: a single GPU");
    if (comm.node_count() != comm.size()) {
      return fmt::format("PAT runs one GPU per node; here: {} GPUs on {} node{}", comm.size(),
                         comm.node_count(), comm.node_count() == 1 ? "" : "s");
    }
    return std::nullopt;
  }

  std::vector<Protocol> protocols(const Communicator& /*comm*/,
                                  const Request& /*request*/) const override {
    return {Protocol::simple};  // tuning.cc: PAT is Simple only
  }

  int channels(const Communicator& comm, Protocol /*p*/, double /*bytes*/) const override {
    return comm.max_channels();
  }

  double base_latency_s(Protocol /*p*/) const override { return kBaseLatency_us * kUs; }

  // Between nodes, a stage's share of NCCL's network step latency (see kStageLatencyDivisor);
  // NCCL takes the NET latency of Tree there, as ppn is 1, and Tree's 14 us equals PAT's row.
  double hop_latency_s(Protocol p, HwClass c) const override {
    if (p != Protocol::simple) return 0.0;
    const double us = kHopLatencySimple_us[static_cast<std::size_t>(c)];
    return (c == HwClass::net ? us / kStageLatencyDivisor : us) * kUs;
  }

  // tuning.cc, all-gather and reduce-scatter with one GPU per node: busBw = nCh x speed (the
  // ring graph's) x0.75, unconverted (not a ring). Latency: 8 + log2(nNodes) interLat / 3.5 +
  // 2.8 nRanks (the schedule's per-rank cost).
  std::optional<NcclModelRow> nccl_model_row(const Communicator& /*comm*/,
                                             const NcclModelInputs& in, Op /*op*/,
                                             Protocol p) const override {
    const NcclTunerGraph& g = in.ring;
    if (g.channels <= 0) return std::nullopt;
    NcclModelRow row;
    row.alg_GBps =
        g.channels * (in.nodes <= 2 ? g.intra_GBps : g.inter_GBps) * kBandwidthEfficiency;
    row.latency_us =
        base_latency_s(p) / kUs +
        nccl_log2i(in.nodes) * nccl_inter_latency_us(in, id(), p, g) / kStageLatencyDivisor +
        kPerRankSchedule_us * in.ranks;
    return row;
  }

  double bandwidth_efficiency(const Communicator& /*comm*/) const override {
    return kBandwidthEfficiency;
  }

  bool moves_only_over_rank_routes() const override { return true; }

  TaskId lower(Lowering& l, TaskId start) const override {
    const int n = l.comm().size();
    const Op op = l.request().op;
    const double part_bytes = l.request().size_bytes / n;
    const auto stages = stages_for(op, n);
    const TaskId scheduled = l.sim().add_delay(kPerRankSchedule_us * kUs * n, {&start, 1});
    if (!l.by_slices()) return lower_by_steps(l, scheduled, stages, part_bytes);
    // Slices: a rank's stage forwards (all-gather) or reduces (reduce-scatter) what it received
    // the stage before, slice by slice. Each stage is a stream of its own: PAT's worker groups
    // (NCCL_PAT_NWORKERS / WARP_SIZE = 16 of them, at most log2 of 65536 stages) run the steps
    // the compute thread hands out in parallel, rather than one CTA running them in turn.
    SlicePipeline pipe(chunk_shape(op, l.request().size_bytes, l.choice().channels),
                       l.choice().channels);
    std::vector<int> received(static_cast<std::size_t>(n), -1);  // the last send into each rank
    std::vector<int> next(static_cast<std::size_t>(n), -1);
    for (std::size_t k = 0; k < stages.size(); ++k) {
      const Stage& s = stages[k];
      for (int r = 0; r < n; ++r) {
        const int before = received[static_cast<std::size_t>(r)];
        const int to = peer(op, n, r, s.distance);
        next[static_cast<std::size_t>(to)] =
            pipe.add(r, to, static_cast<int>(k), s.parts * part_bytes,
                     before >= 0 ? std::span<const int>(&before, 1) : std::span<const int>());
      }
      received = next;
    }
    return pipe.emit(l, scheduled);
  }

 private:
  // One bulk flow per rank and stage; a rank's stage starts once it has sent the stage before
  // and received what that stage brought it.
  static TaskId lower_by_steps(Lowering& l, TaskId start, const std::vector<Stage>& stages,
                               double part_bytes) {
    const int n = l.comm().size();
    const Op op = l.request().op;
    const auto rn = static_cast<std::size_t>(n);
    std::vector<TaskId> sent(rn, start), received(rn, start), arrived(rn, start);
    for (const Stage& s : stages) {
      for (int r = 0; r < n; ++r) {
        const auto u = static_cast<std::size_t>(r);
        const std::array<TaskId, 2> deps{sent[u], received[u]};
        const int to = peer(op, n, r, s.distance);
        sent[u] = l.send(r, to, s.parts * part_bytes, deps);
        arrived[static_cast<std::size_t>(to)] = sent[u];
      }
      received = arrived;
    }
    return l.sim().add_barrier(sent);
  }

  static ChunkShape chunk_shape(Op op, double bytes, int channels) {
    const double factor = op == Op::all_gather ? 32 : 16;
    double chunk = kStepBytes;
    while (chunk * channels * factor > bytes && chunk > kMinChunkBytes)
      chunk /= 2;
    return ChunkShape{chunk, 1, kNcclSteps};
  }
};

}  // namespace

namespace algorithms {
const CollectiveAlgorithm& pat() {
  static const PatAlgorithm instance;
  return instance;
}
}  // namespace algorithms

}  // namespace linksim::coll
