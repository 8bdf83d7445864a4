// NVLS (NVLink SHARP): the NVSwitch reduces. Each GPU is the head of a 1/n slice: it pulls the
// switch-reduced values of its slice (multimem.ld_reduce) and multicasts the result back, so
// each GPU sends and receives S (n+1)/n through its NVSwitch ports (nccl-model.md §4).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "sim/coll/algorithm.hpp"
#include "sim/coll/channel_work.hpp"
#include "sim/coll/slice_pipeline.hpp"

namespace linksim::coll {
namespace {

using engine::PathShare;
using engine::TaskId;

constexpr double kUs = 1e-6;

// ../shared/reference/nccl-model.md §2, tuning.cc @5067397c: NVLS has no base latency, all of
// it is in the hop term; hwLatencies for NVLS by class [NVLINK, PCI, NET], Simple only, µs.
constexpr std::array<double, 3> kHopLatencySimple_us{25, 0, 18};
// nvlsEfficiency by generation [Volta, Ampere, Hopper, Blackwell]: 0 where NVLS does not exist.
constexpr std::array<double, 4> kEfficiency{0, 0, 0.85, 0.74};
// nvls.cc (ncclNvlsInit, NCCL 2.27 and later): NVLS_NCHANNELS_SM90 16 on Hopper;
// NVLS_NCHANNELS_SM100_NVL 24 on Blackwell when the NVLS domain is one host,
// NVLS_NCHANNELS_SM100 32 when it spans several (a multi-node NVLink domain).
constexpr int kChannelsHopper = 16;
constexpr int kChannelsBlackwellOneHost = 24;
constexpr int kChannelsBlackwellMultiHost = 32;
constexpr int kMinNvlinkGeneration = 4;

double efficiency(GpuGeneration g) {
  return kEfficiency[static_cast<std::size_t>(g)];
}

int nvls_channels(const Communicator& comm) {
  if (comm.generation() != GpuGeneration::blackwell) return kChannelsHopper;
  return comm.node_count() > 1 ? kChannelsBlackwellMultiHost : kChannelsBlackwellOneHost;
}

class NvlsAlgorithm final : public CollectiveAlgorithm {
 public:
  std::string_view name() const override { return Algorithm::nvls.name(); }

  std::vector<Op> operations() const override { return {Op::all_reduce}; }

  // NVLS needs an NVSwitch fabric of NVLink 4 or later (SM90+) between every pair.
  std::optional<std::string> why_ineligible(const Communicator& comm) const override {
    const auto& topo = comm.topology();
    const auto& gpu = *topo.node(comm.gpu(0)).gpu;
    std::vector<std::string> missing;
    if (comm.size() < 2) {
      missing.emplace_back("a single GPU");
    } else if (comm.node_count() > 1) {
      // NCCL runs NVLS across nodes only with CollNet (NVLSTree), not modelled yet.
      missing.push_back(
          fmt::format("{} nodes (across nodes NVLS needs NVLSTree)", comm.node_count()));
    } else if (comm.intra_class() != HwClass::nvlink) {
      missing.emplace_back("not every pair of GPUs is joined directly by NVLink");
    }
    if (topo.count(topo::NodeKind::nvswitch) == 0) missing.emplace_back("no NVSwitch");
    if (gpu.nvlink_generation < kMinNvlinkGeneration) {
      missing.push_back(gpu.nvlink_generation == 0
                            ? std::string("no NVLink")
                            : fmt::format("NVLink {}", gpu.nvlink_generation));
    }
    if (efficiency(comm.generation()) == 0) {
      missing.push_back(fmt::format("{} GPUs have no NVLink SHARP", gpu.architecture));
    }
    if (missing.empty()) return std::nullopt;
    return fmt::format(
        "NVLS needs an NVSwitch with NVLink 4 or later (Hopper or newer) between every pair of "
        "GPUs; here: {}",
        fmt::join(missing, ", "));
  }

  std::vector<Protocol> protocols(const Communicator& /*comm*/,
                                  const Request& /*request*/) const override {
    return {Protocol::simple};  // NVLS is Simple only
  }

  int channels(const Communicator& comm, Protocol /*p*/, double /*bytes*/) const override {
    return nvls_channels(comm);
  }

  ChannelWork channel_work(const Communicator& comm, const Request& request,
                           int channels) const override {
    return split(comm, request, channels).work;
  }

  // Its own channel count (NCCL_NVLS_NCHANNELS), not comm->nChannels.
  bool follows_channel_bounds() const override { return false; }

  double base_latency_s(Protocol /*p*/) const override { return 0; }

  double hop_latency_s(Protocol p, HwClass c) const override {
    return p == Protocol::simple ? kHopLatencySimple_us[static_cast<std::size_t>(c)] * kUs : 0.0;
  }

  // tuning.cc, Simple only, on one node: intraBw = bwIntra x nvlsEfficiency x (nCh - 1) / nCh,
  // doubled for all-reduce ("AllReduce pipelines two operations"), x (n - 1) / n otherwise;
  // busBw = nCh x min(intraBw, bwInter); algBw = busBw x n / nsteps. Latency: the NVLink hop
  // alone. Across nodes NCCL runs NVLS only with CollNet: disabled (a row of no bandwidth).
  std::optional<NcclModelRow> nccl_model_row(const Communicator& comm, const NcclModelInputs& in,
                                             Op op, Protocol p) const override {
    if (in.nodes > 1) return NcclModelRow{};
    const NcclTunerGraph& g = in.nvls;
    if (g.channels <= 0 || p != Protocol::simple || g.channels < 2) return std::nullopt;
    const int n = in.ranks;
    double intra = g.intra_GBps * bandwidth_efficiency(comm) * (g.channels - 1) / g.channels;
    intra *= op == Op::all_reduce ? 2.0 : (n - 1.0) / n;  // ppn = n on one node
    const double bus = g.channels * std::min(intra, g.inter_GBps);
    NcclModelRow row;
    row.alg_GBps = bus * (static_cast<double>(n) / nccl_model_steps(op, n));
    row.latency_us = hop_latency_s(p, g.intra_class) / kUs;
    return row;
  }

  double bandwidth_efficiency(const Communicator& comm) const override {
    return efficiency(comm.generation());
  }

  // Per channel NCCL loops over heads x chunk (all_reduce.h, NVLS oneNode): scatter warps
  // copy the loop's input into the NVLS buffers, each head's reduce warps pull the
  // switch-reduced chunk and multicast it (the NVLink traffic), gather warps copy the result
  // out. The three run as a pipeline of loops through NCCL_STEPS slots; every stage pays a
  // chunk's synchronisation. A message may reach only some channels (channel_work.hpp: how
  // depends on the NCCL release); those move in lockstep, each as loaded as the busiest, so one
  // set of tasks stands for them, and their copies run at as many channels' rate.
  TaskId lower(Lowering& l, TaskId start) const override {
    if (!l.by_slices()) return lower_by_steps(l, start);
    const int n = l.comm().size();
    const auto [work, chunk] = split(l.comm(), l.request(), l.choice().channels);
    const Carried carried{work.busiest_bytes * work.channels,
                          nvls_copy_per_channel_Bps() * work.channels};
    const int loops =
        std::max(1, static_cast<int>(std::ceil(work.busiest_bytes / (n * chunk) - 1e-9)));
    // NCCL's NVLS latency (hwLat, 25 us on NVLink) is the whole cost of a one-chunk call; the
    // pipeline's three stages pay their synchronisation in the simulation, so the start pays
    // the rest.
    const double stages_sync_s = 3 * nvls_chunk_sync_s();
    const TaskId fill = l.sim().add_delay(std::max(0.0, l.hop_s() - stages_sync_s), {&start, 1});
    return emit_with_replay(l, fill, loops, /*depth_loops=*/3, /*window_loops=*/kNcclSteps,
                            [n, carried](Lowering& lw, TaskId begin, int count, double share,
                                         double scale, std::vector<std::vector<TaskId>>* arr) {
                              std::vector<Ports> own;
                              for (int r = 0; r < n; ++r)
                                own.push_back(switch_ports(lw, r));
                              return emit_loops(lw, own, n, carried, begin, count, share, scale,
                                                arr);
                            });
  }

 private:
  // The channels that carry data and their chunk: the release's split (channel_work.hpp), and
  // NCCL's NVLS chunk for what they carry (enqueue.cc: smaller for small messages).
  struct Split {
    ChannelWork work;
    double chunk_bytes;
  };
  static Split split(const Communicator& comm, const Request& request, int channels) {
    const int n = comm.size();
    const double bytes = request.size_bytes;
    const double most_chunk = comm.nvls_max_chunk_bytes();
    if (request.nccl_version >= kCellScheduleSince) {
      const ChannelWork work = cell_channel_work(bytes, channels, request.op, Protocol::simple, n);
      return {work,
              nvls_chunk_bytes(work.busiest_bytes * work.channels, work.channels, n, most_chunk)};
    }
    const double chunk = nvls_chunk_bytes(bytes, channels, n, most_chunk);
    return {nvls_block_channel_work(bytes, channels, n, chunk), chunk};
  }

  // What the active channels carry together, and the rate their scatter and gather warps copy.
  struct Carried {
    double bytes;
    double copy_Bps;
  };
  struct Ports {
    std::vector<PathShare> up;    // from the GPU into the switches
    std::vector<PathShare> down;  // from the switches into the GPU
  };

  // One bulk flow each way per GPU after NVLS's latency.
  static TaskId lower_by_steps(Lowering& l, TaskId start) {
    const int n = l.comm().size();
    const double each = l.request().size_bytes * (n + 1) / n;
    const TaskId fill = l.sim().add_delay(l.hop_s(), {&start, 1});
    std::vector<TaskId> flows;
    for (int r = 0; r < n; ++r) {
      const Ports ports = switch_ports(l, r);
      const int gi = l.comm().gpu_index(r);
      const double wire_bytes = each / l.wire_efficiency();
      flows.push_back(l.sim().add_transfer(wire_bytes, ports.up, gi, engine::kNoGpu, {&fill, 1}));
      flows.push_back(l.sim().add_transfer(wire_bytes, ports.down, engine::kNoGpu, gi, {&fill, 1}));
    }
    return l.sim().add_barrier(flows);
  }

  static TaskId emit_loops(Lowering& l, const std::vector<Ports>& ports, int n,
                           const Carried& carried, TaskId start, int count, double share,
                           double scale, std::vector<std::vector<TaskId>>* arrivals) {
    engine::Simulation& sim = l.sim();
    const double loop_bytes = carried.bytes * share;
    const double wire_bytes = loop_bytes * (n + 1) / n / l.wire_efficiency();
    const double sync_s = nvls_chunk_sync_s() * scale;
    const double copy_s = loop_bytes / carried.copy_Bps + sync_s;
    const auto rn = static_cast<std::size_t>(n);
    std::vector<TaskId> scatter(rn, start), reduce(rn, start), gather(rn, start);
    std::vector<std::vector<TaskId>> gathered;  // by loop, for the slots
    if (arrivals) arrivals->assign(static_cast<std::size_t>(count), {});
    std::vector<TaskId> deps, flows;
    for (int k = 0; k < count; ++k) {
      for (std::size_t r = 0; r < rn; ++r) {
        deps = {scatter[r]};
        if (k >= kNcclSteps) deps.push_back(gathered[static_cast<std::size_t>(k - kNcclSteps)][r]);
        scatter[r] = sim.add_delay(copy_s, deps);
      }
      const TaskId scattered = sim.add_barrier(scatter);
      for (std::size_t r = 0; r < rn; ++r) {
        const int gi = l.comm().gpu_index(static_cast<int>(r));
        const std::array<TaskId, 2> after{scattered, reduce[r]};
        flows = {sim.add_transfer(wire_bytes, ports[r].up, gi, engine::kNoGpu, after),
                 sim.add_transfer(wire_bytes, ports[r].down, engine::kNoGpu, gi, after)};
        reduce[r] = sim.add_delay(sync_s, flows);
      }
      const TaskId reduced = sim.add_barrier(reduce);
      for (std::size_t r = 0; r < rn; ++r) {
        const std::array<TaskId, 2> after{reduced, gather[r]};
        gather[r] = sim.add_delay(copy_s, after);
      }
      gathered.push_back(gather);
      if (arrivals) (*arrivals)[static_cast<std::size_t>(k)] = gather;
    }
    return sim.add_barrier(gather);
  }

  // Rank r's NVLink ports, both directions, each carrying its share of r's lanes.
  static Ports switch_ports(Lowering& l, int r) {
    const auto& topo = l.comm().topology();
    const topo::NodeId g = l.comm().gpu(r);
    double lanes = 0;
    for (topo::LinkId id = 0; id < topo.links().size(); ++id) {
      const auto& link = topo.link(id);
      if (link.kind == topo::LinkKind::nvlink && (link.a == g || link.b == g)) lanes += link.lanes;
    }
    Ports out;
    for (topo::LinkId id = 0; id < topo.links().size(); ++id) {
      const auto& link = topo.link(id);
      if (link.kind != topo::LinkKind::nvlink || (link.a != g && link.b != g)) continue;
      const bool g_is_a = link.a == g;
      const engine::ChannelId from_gpu = topo::Topology::channel(id, g_is_a);
      const engine::ChannelId into_gpu = topo::Topology::channel(id, !g_is_a);
      out.up.push_back({l.sim().add_path({&from_gpu, 1}, link.latency_s), link.lanes / lanes});
      out.down.push_back({l.sim().add_path({&into_gpu, 1}, link.latency_s), link.lanes / lanes});
    }
    return out;
  }
};

}  // namespace

namespace algorithms {
const CollectiveAlgorithm& nvls() {
  static const NvlsAlgorithm instance;
  return instance;
}
}  // namespace algorithms

}  // namespace linksim::coll
