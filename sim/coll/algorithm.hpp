#pragma once
// The interface every collective algorithm implements: one plug-in per file under algorithms/,
// listed by the registry (algorithm_registry.hpp). How to add one: docs/adding-an-algorithm.md.
//
// A plug-in declares, for the planner (collective_sim.cpp) and the lowering:
// - its NCCL name (NCCL_ALGO spelling), printed by --explain and JSON, and other spellings;
// - the operations it serves;
// - when it is eligible on a communicator, and why not;
// - the protocols it runs and its channel rule (how many channels for a message size);
// - its latency constants by protocol and hardware class, and its bandwidth constants
//   (per-rank caps, an efficiency on the wire);
// - its row of NCCL's cost model, by which the planner picks as NCCL does;
// - its lowering onto the engine: the transfers of one call.
//
// Plug-ins hold no state: one instance serves every communicator, concurrently.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/coll/channel_work.hpp"
#include "sim/coll/collective.hpp"
#include "sim/coll/communicator.hpp"
#include "sim/coll/lowering.hpp"
#include "sim/coll/nccl_tuner_model.hpp"
#include "sim/coll/protocol.hpp"
#include "sim/coll/request.hpp"
#include "sim/engine/simulation.hpp"

namespace linksim::coll {

class CollectiveAlgorithm {
 public:
  virtual ~CollectiveAlgorithm() = default;

  // NCCL's name ("Ring"), unique in the registry ignoring case. Must view a literal.
  virtual std::string_view name() const = 0;
  // More spellings users may write ("pairwise"), matched ignoring case. Literals too.
  virtual std::vector<std::string_view> aliases() const { return {}; }
  // The handle that names this plug-in in requests and results.
  Algorithm id() const { return Algorithm(name()); }

  // The operations it can run, in Op order.
  virtual std::vector<Op> operations() const = 0;
  bool serves(Op op) const;

  // Whether it can run on `comm` at all: nullopt when it can, otherwise why not, as a sentence
  // that names the algorithm and what the machine lacks ("NVLS needs ...: no NVSwitch").
  virtual std::optional<std::string> why_ineligible(const Communicator& comm) const = 0;

  // The protocols it would try for `request`, in the order LL, LL128, Simple. Default: those
  // the communicator enables (LL, LL128 where every pair is NVLink, Simple). The planner then
  // keeps the one the request forces, if any.
  virtual std::vector<Protocol> protocols(const Communicator& comm, const Request& request) const;

  // Channels (CTAs) it runs for a message of `bytes` under protocol `p`: at least 1.
  virtual int channels(const Communicator& comm, Protocol p, double bytes) const = 0;
  // How `request`'s bytes spread over the `channels` it runs: how many carry data and how much
  // the busiest moves (channel_work.hpp). Default: every channel, an equal share.
  virtual ChannelWork channel_work(const Communicator& comm, const Request& request,
                                   int channels) const;

  // Paid once per operation (launch and kernel synchronisation), seconds.
  virtual double base_latency_s(Protocol p) const = 0;
  // Paid by every step between two GPUs (a flag handshake), by the links' class, seconds.
  virtual double hop_latency_s(Protocol p, HwClass c) const = 0;
  // Payload each rank can push at most with `channels` channels, bytes per second; 0 for no
  // cap. Default: the protocol's caps (LL's total, LL128's per channel; Simple none).
  virtual double rank_cap_Bps(const Communicator& comm, Protocol p, int channels) const;
  // Payload the busiest rank must send, at least, for `request` (the planner's bound to skip a
  // candidate that cannot win; see collective_sim.cpp). Default: what any algorithm must move
  // out of a rank, S (n-1)/n for the all-to-all-like operations, 0 for the others.
  virtual double least_bytes_sent_by_a_rank(const Communicator& comm, const Request& request) const;
  // The share of the protocol's wire efficiency this algorithm reaches (NVLS's SHARP
  // efficiency); default 1.
  virtual double bandwidth_efficiency(const Communicator& comm) const;

  // Its row of NCCL's cost model (nccl_tuner_model.hpp, tuning.cc ncclTopoTuneModel) for `op`
  // under protocol `p`: the algorithm bandwidth and latency NCCL predicts from, a row of no
  // bandwidth where NCCL disables the pair. Default nullopt: NCCL has no row for it (the
  // planner then simulates every candidate and keeps the fastest).
  virtual std::optional<NcclModelRow> nccl_model_row(const Communicator& comm,
                                                     const NcclModelInputs& in, Op op,
                                                     Protocol p) const;

  // Whether NCCL_MIN/MAX_NCHANNELS bound its channels (Request::min_channels, max_channels):
  // they clamp comm->nChannels, which NVLS and NVLSTree do not start from. Default true.
  virtual bool follows_channel_bounds() const { return true; }

  // Whether every transfer its lowering adds goes through Lowering's sends between ranks (their
  // routes), none over channels it picks itself (NVLS's switch ports). Only then may a lone
  // run leave out identical planes (route_planes.hpp). Default false.
  virtual bool moves_only_over_rank_routes() const { return false; }

  // Adds the transfers of `lowering.request()` to `lowering.sim()`, all after `start` (the base
  // latency has been paid), and returns the task that ends the operation.
  // REQUIRES: serves(request.op), eligible on the communicator, at least 2 ranks.
  virtual engine::TaskId lower(Lowering& lowering, engine::TaskId start) const = 0;
};

// NCCL's channel rule (enqueue.cc topoGetAlgoInfo): start from the communicator's channels and
// drop one while the message is smaller than channels x threads x bytes per thread.
int nccl_channel_count(const Communicator& comm, int threads_per_channel,
                       double threshold_bytes_per_thread, double bytes);

}  // namespace linksim::coll
