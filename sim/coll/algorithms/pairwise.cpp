// Pairwise (NCCL's p2p sends and receives, printed "P2P"): all-to-all is n sends and n receives
// per rank in one group (nccl src/enqueue.cc), sendrecv a shift by one rank. The nccl-tests
// binaries scatter_perf, gather_perf, alltoallv_perf and hypercube_perf run as grouped
// ncclSend/ncclRecv too (nccl-tests src/scatter.cu, gather.cu, alltoallv.cu, hypercube.cu @
// a0b82b22; NCCL 2.28's ncclScatter/ncclGather expand into the same p2p tasks). NCCL has no
// tuning row for p2p; a p2p hop is priced as a ring step (the Ring rows of algorithms/ring.cpp).
// On a communicator over several nodes the sends take NCCL's p2p channels and chunks and its
// window of NCCL_STEPS chunks in flight (p2p_channels.hpp, lower_group below).
#include <algorithm>
#include <vector>

#include "sim/coll/algorithm.hpp"
#include "sim/coll/algorithm_registry.hpp"
#include "sim/coll/p2p_channels.hpp"
#include "sim/coll/pipeline_constants.hpp"
#include "sim/coll/slice_pipeline.hpp"

namespace linksim::coll {
namespace {

using engine::TaskId;

// NCCL's p2p LL threshold per channel (enqueue.cc NCCL_P2P_LL_THRESHOLD) and the p2p channels
// per peer inside one node (2; NCCL's own rule gives 2 x NVLinks there, which the single-node
// bulk flows do not depend on except through this LL threshold, left as it was).
constexpr double kLlThreshold_bytes = 16 * 1024;
constexpr int kChannels = 2;

const CollectiveAlgorithm& ring() {
  return AlgorithmRegistry::builtin().get(Algorithm::ring);
}

class PairwiseAlgorithm final : public CollectiveAlgorithm {
 public:
  std::string_view name() const override { return Algorithm::pairwise.name(); }
  std::vector<std::string_view> aliases() const override { return {"pairwise"}; }

  std::vector<Op> operations() const override {
    return {Op::alltoall, Op::sendrecv, Op::scatter, Op::gather, Op::alltoallv, Op::hypercube};
  }

  std::optional<std::string> why_ineligible(const Communicator& /*comm*/) const override {
    return std::nullopt;  // any two ranks that reach each other can send
  }

  // p2p picks its protocol by size, not by cost: LL up to 16 KiB per channel, else Simple.
  // A forced protocol is tried among the communicator's.
  std::vector<Protocol> protocols(const Communicator& comm, const Request& request) const override {
    if (request.protocol) return CollectiveAlgorithm::protocols(comm, request);
    const double per_peer = per_peer_bytes(comm, request.op, request.size_bytes);
    const int channels = comm.node_count() > 1 ? net_send_channels(comm, per_peer) : kChannels;
    return {per_peer <= channels * kLlThreshold_bytes ? Protocol::ll : Protocol::simple};
  }

  // Inside one node, 2 (see kChannels); across nodes NCCL's count for one send of a rank's
  // share (alltoall's S / n; the lowering counts each group's own).
  int channels(const Communicator& comm, Protocol /*p*/, double bytes) const override {
    if (comm.node_count() <= 1) return kChannels;
    return net_send_channels(comm, per_peer_bytes(comm, Op::alltoall, bytes));
  }

  double base_latency_s(Protocol p) const override { return ring().base_latency_s(p); }
  double hop_latency_s(Protocol p, HwClass c) const override { return ring().hop_latency_s(p, c); }

  bool moves_only_over_rank_routes() const override { return true; }

  TaskId lower(Lowering& l, TaskId start) const override {
    const int n = l.comm().size();
    const double s = l.request().size_bytes;
    const int root = l.request().root;
    std::vector<PeerSend> sends;
    switch (l.request().op) {
      case Op::alltoall:
        // Every rank sends S/n to every other rank, all at once (ncclGroup of sends).
        for (int a = 0; a < n; ++a) {
          for (int b = 0; b < n; ++b) {
            if (a != b) sends.push_back({a, b, s / n});
          }
        }
        break;
      case Op::scatter:
        // scatter.cu: the root sends each rank its S/n part in one group.
        for (int r = 0; r < n; ++r) {
          if (r != root) sends.push_back({root, r, s / n});
        }
        break;
      case Op::gather:
        // gather.cu: every rank sends its S/n part to the root in one group.
        for (int r = 0; r < n; ++r) {
          if (r != root) sends.push_back({r, root, s / n});
        }
        break;
      case Op::alltoallv:
        // alltoallv.cu's default (generated, spread 1) pattern: rank i sends rank j a share of
        // its S bytes proportional to the distance d = (j - i) mod n, d / (n(n-1)/2), all in
        // one group. (nccl-tests rounds each share down to 16 bytes; the request's S is
        // already their sum.)
        for (int a = 0; a < n; ++a) {
          for (int b = 0; b < n; ++b) {
            const int d = (b - a + n) % n;
            if (d != 0) sends.push_back({a, b, s * d / (n * (n - 1) / 2.0)});
          }
        }
        break;
      case Op::hypercube:
        return lower_hypercube(l, start);
      default:
        // sendrecv_perf: rank r sends to r+1 and receives from r-1, all at once.
        for (int r = 0; r < n; ++r)
          sends.push_back({r, (r + 1) % n, s});
        break;
    }
    return lower_group(l, sends, start);
  }

 private:
  // What one rank sends one peer: sendrecv sends all of it, the others a rank's share.
  static double per_peer_bytes(const Communicator& comm, Op op, double bytes) {
    return op == Op::sendrecv ? bytes : bytes / comm.size();
  }

  // The communicator's p2p channels, worked out once per communicator.
  static P2pChannels comm_p2p_channels(const Communicator& comm) {
    P2pChannels c;
    c.per_peer = static_cast<int>(comm.memo(
        "p2p_channels.per_peer", [&] { return static_cast<double>(p2p_channels(comm).per_peer); }));
    c.total = static_cast<int>(comm.memo(
        "p2p_channels.total", [&] { return static_cast<double>(p2p_channels(comm).total); }));
    return c;
  }

  static int net_send_channels(const Communicator& comm, double bytes) {
    return p2p_send_channels(bytes, comm_p2p_channels(comm), comm.size(),
                             comm.p2p_net_chunk_bytes());
  }

  struct PeerSend {
    int from = 0;
    int to = 0;
    double bytes = 0;
  };

  // One ncclGroup of sends, all after `start`. Inside one node each is one flow over its
  // route, shared max-min with the rest. Across nodes (and when slices are asked for) each
  // moves as NCCL's proxy moves it: on its channels, chunk by chunk, at most NCCL_STEPS chunks
  // per channel unconsumed at the receiver, so a send of many chunks to a far peer runs at
  // channels x 8 chunks per step round (the step latency, the path's latency and the chunk's
  // time on the wire) when the links leave it room, and at its share of the links when not.
  static TaskId lower_group(Lowering& l, const std::vector<PeerSend>& sends, TaskId start) {
    if (l.comm().node_count() > 1 && l.by_slices() && !sends.empty()) {
      double largest_bytes = 0;
      for (const PeerSend& p : sends)
        largest_bytes = std::max(largest_bytes, p.bytes);
      const int channels = net_send_channels(l.comm(), largest_bytes);
      const ChunkShape shape{
          p2p_net_chunk_bytes(largest_bytes, l.choice().protocol, l.comm().p2p_net_chunk_bytes()),
          1, kNcclSteps};
      SlicePipeline pipeline(shape, channels);
      pipeline.overlap_link_latency();
      // Each send is its own stream: NCCL runs a batch's p2p ops side by side, one warp group
      // each, so sends to different peers do not queue behind one another.
      for (std::size_t i = 0; i < sends.size(); ++i)
        pipeline.add(sends[i].from, sends[i].to, static_cast<int>(i), sends[i].bytes);
      return pipeline.emit(l, start);
    }
    std::vector<TaskId> flows;
    flows.reserve(sends.size());
    for (const PeerSend& p : sends)
      flows.push_back(l.send(p.from, p.to, p.bytes, {&start, 1}));
    return l.sim().add_barrier(flows);
  }

  // hypercube.cu: an all-gather by recursive doubling. Step k (mask 2^k) swaps the 2^k parts
  // gathered so far (S/n each) with rank ^ mask, one group per step, each after the last. It
  // needs a power-of-two rank count (the binary skips the test otherwise); with another count
  // the partners beyond n are skipped.
  static TaskId lower_hypercube(Lowering& l, TaskId start) {
    const int n = l.comm().size();
    const double part = l.request().size_bytes / n;
    TaskId after = start;
    for (int mask = 1; mask < n; mask <<= 1) {
      std::vector<PeerSend> sends;
      for (int r = 0; r < n; ++r) {
        if ((r ^ mask) < n) sends.push_back({r, r ^ mask, part * mask});
      }
      after = lower_group(l, sends, after);
    }
    return after;
  }
};

}  // namespace

namespace algorithms {
const CollectiveAlgorithm& pairwise() {
  static const PairwiseAlgorithm instance;
  return instance;
}
}  // namespace algorithms

}  // namespace linksim::coll
