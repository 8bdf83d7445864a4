#include "sim/coll/algorithm.hpp"

#include <algorithm>

namespace linksim::coll {

bool CollectiveAlgorithm::serves(Op op) const {
  const auto ops = operations();
  return std::find(ops.begin(), ops.end(), op) != ops.end();
}

std::vector<Protocol> CollectiveAlgorithm::protocols(const Communicator& comm,
                                                     const Request& /*request*/) const {
  std::vector<Protocol> out{Protocol::ll};
  if (comm.ll128_enabled()) out.push_back(Protocol::ll128);
  out.push_back(Protocol::simple);
  return out;
}

double CollectiveAlgorithm::least_bytes_sent_by_a_rank(const Communicator& comm,
                                                       const Request& request) const {
  const int n = comm.size();
  if (n < 2) return 0;
  switch (request.op) {
    case Op::all_reduce:
    case Op::all_gather:
    case Op::reduce_scatter:
    case Op::alltoall:
      return request.size_bytes * (n - 1) / n;
    default:
      return 0;  // broadcast, reduce, sendrecv and the rooted ops: only some ranks send
  }
}

double CollectiveAlgorithm::rank_cap_Bps(const Communicator& comm, Protocol p, int channels) const {
  switch (p) {
    case Protocol::ll:
      return ll_max_total_Bps(comm.generation(), comm.node_count(), comm.amd_cpu());
    case Protocol::ll128:
      return channels * ll128_per_channel_Bps(comm.generation());
    case Protocol::simple:
      return 0.0;
  }
  return 0.0;
}

double CollectiveAlgorithm::bandwidth_efficiency(const Communicator& /*comm*/) const {
  return 1.0;
}

std::optional<NcclModelRow> CollectiveAlgorithm::nccl_model_row(const Communicator& /*comm*/,
                                                                const NcclModelInputs& /*in*/,
                                                                Op /*op*/, Protocol /*p*/) const {
  return std::nullopt;
}

ChannelWork CollectiveAlgorithm::channel_work(const Communicator& /*comm*/, const Request& request,
                                              int channels) const {
  return {channels, request.size_bytes / channels};
}

int nccl_channel_count(const Communicator& comm, int threads_per_channel,
                       double threshold_bytes_per_thread, double bytes) {
  int nc = comm.max_channels();
  const double per_channel = threads_per_channel * threshold_bytes_per_thread;
  while (nc > 1 && bytes < nc * per_channel)
    --nc;
  return nc;
}

}  // namespace linksim::coll
