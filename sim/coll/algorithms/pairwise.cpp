// Pairwise (NCCL's p2p sends and receives, printed "P2P"): all-to-all is n sends and n receives
// per rank in one group (nccl src/enqueue.cc), sendrecv a shift by one rank. The nccl-tests
// binaries scatter_perf, gather_perf, alltoallv_perf and hypercube_perf run as grouped
// ncclSend/ncclRecv too (nccl-tests src/scatter.cu, gather.cu, alltoallv.cu, hypercube.cu @
// a0b82b22; NCCL 2.28's ncclScatter/ncclGather expand into the same p2p tasks). NCCL has no
// tuning row for p2p; a p2p hop is priced as a ring step (the Ring rows of algorithms/ring.cpp).
#include <vector>

#include "sim/coll/algorithm.hpp"
#include "sim/coll/algorithm_registry.hpp"

namespace linksim::coll {
namespace {

using engine::TaskId;

// NCCL's p2p LL threshold per channel (enqueue.cc NCCL_P2P_LL_THRESHOLD) and p2p channels
// per peer over PCIe and NVLink (2).
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
    const double per_peer =
        request.op == Op::sendrecv ? request.size_bytes : request.size_bytes / comm.size();
    return {per_peer <= kChannels * kLlThreshold_bytes ? Protocol::ll : Protocol::simple};
  }

  int channels(const Communicator& /*comm*/, Protocol /*p*/, double /*bytes*/) const override {
    return kChannels;
  }

  double base_latency_s(Protocol p) const override { return ring().base_latency_s(p); }
  double hop_latency_s(Protocol p, HwClass c) const override { return ring().hop_latency_s(p, c); }

  TaskId lower(Lowering& l, TaskId start) const override {
    const int n = l.comm().size();
    const double s = l.request().size_bytes;
    const int root = l.request().root;
    std::vector<TaskId> flows;
    switch (l.request().op) {
      case Op::alltoall:
        // Every rank sends S/n to every other rank, all at once (ncclGroup of sends).
        for (int a = 0; a < n; ++a) {
          for (int b = 0; b < n; ++b) {
            if (a != b) flows.push_back(l.send(a, b, s / n, {&start, 1}));
          }
        }
        break;
      case Op::scatter:
        // scatter.cu: the root sends each rank its S/n part in one group.
        for (int r = 0; r < n; ++r) {
          if (r != root) flows.push_back(l.send(root, r, s / n, {&start, 1}));
        }
        break;
      case Op::gather:
        // gather.cu: every rank sends its S/n part to the root in one group.
        for (int r = 0; r < n; ++r) {
          if (r != root) flows.push_back(l.send(r, root, s / n, {&start, 1}));
        }
        break;
      case Op::alltoallv:
        return lower_alltoallv(l, start);
      case Op::hypercube:
        return lower_hypercube(l, start);
      default:
        // sendrecv_perf: rank r sends to r+1 and receives from r-1, all at once.
        for (int r = 0; r < n; ++r)
          flows.push_back(l.send(r, (r + 1) % n, s, {&start, 1}));
        break;
    }
    return l.sim().add_barrier(flows);
  }

 private:
  // alltoallv.cu's default (generated, spread 1) pattern: rank i sends rank j a share of its
  // S bytes proportional to the distance d = (j - i) mod n, d / (n(n-1)/2), all in one group.
  // (nccl-tests rounds each share down to 16 bytes; the request's S is already their sum.)
  static TaskId lower_alltoallv(Lowering& l, TaskId start) {
    const int n = l.comm().size();
    const double s = l.request().size_bytes;
    const double sum_distances = n * (n - 1) / 2.0;
    std::vector<TaskId> flows;
    for (int a = 0; a < n; ++a) {
      for (int b = 0; b < n; ++b) {
        const int d = (b - a + n) % n;
        if (d != 0) flows.push_back(l.send(a, b, s * d / sum_distances, {&start, 1}));
      }
    }
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
      std::vector<TaskId> flows;
      for (int r = 0; r < n; ++r) {
        if ((r ^ mask) < n) flows.push_back(l.send(r, r ^ mask, part * mask, {&after, 1}));
      }
      after = l.sim().add_barrier(flows);
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
