// Pairwise (NCCL's p2p sends and receives, printed "P2P"): all-to-all is n sends and n receives
// per rank in one group (nccl src/enqueue.cc), sendrecv a shift by one rank. NCCL has no tuning
// row for p2p; a p2p hop is priced as a ring step (the Ring rows of algorithms/ring.cpp).
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

  std::vector<Op> operations() const override { return {Op::alltoall, Op::sendrecv}; }

  std::optional<std::string> why_ineligible(const Communicator& /*comm*/) const override {
    return std::nullopt;  // any two ranks that reach each other can send
  }

  // p2p picks its protocol by size, not by cost: LL up to 16 KiB per channel, else Simple.
  // A forced protocol is tried among the communicator's.
  std::vector<Protocol> protocols(const Communicator& comm, const Request& request) const override {
    if (request.protocol) return CollectiveAlgorithm::protocols(comm, request);
    const double per_peer =
        request.op == Op::alltoall ? request.size_bytes / comm.size() : request.size_bytes;
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
    std::vector<TaskId> flows;
    if (l.request().op == Op::alltoall) {
      // Every rank sends S/n to every other rank, all at once (ncclGroup of sends).
      for (int a = 0; a < n; ++a) {
        for (int b = 0; b < n; ++b) {
          if (a != b) flows.push_back(l.send(a, b, s / n, {&start, 1}));
        }
      }
    } else {
      // sendrecv_perf: rank r sends to r+1 and receives from r-1, all at once.
      for (int r = 0; r < n; ++r)
        flows.push_back(l.send(r, (r + 1) % n, s, {&start, 1}));
    }
    return l.sim().add_barrier(flows);
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
