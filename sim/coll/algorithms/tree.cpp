// Tree: NCCL's double binary tree between nodes, a chain inside each (nccl src/graph/trees.cc).
// All-reduce reduces up towards the root while the result streams back down, both pipelined:
// every hop carries its share of the buffer in both directions at once.
// - On one node: one chain through the ranks carries the whole buffer.
// - On several: every channel (one per node ring, communicator.hpp) has a chain per node, headed
//   by the GPU its NIC serves, and two binary trees over the nodes (the second mirrored, or
//   shifted for an odd count), each carrying half of the channel's share; all of a node's
//   network traffic goes through the head (NCCL's TREE pattern).
#include <algorithm>
#include <array>
#include <vector>

#include "sim/coll/algorithm.hpp"
#include "sim/coll/nccl_trees.hpp"
#include "sim/coll/slice_pipeline.hpp"

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
// perChMaxTreeBw by generation [Volta, Ampere, Hopper, Blackwell], then nodes [1, 2, 3+], GB/s:
// Tree Simple's per-channel throughput cap.
constexpr std::array<std::array<double, 3>, 4> kPerChannelSimple_GBps{
    {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {70.0, 42.8, 24.0}}};
// maxThreads: Tree always runs 640 threads per channel.
constexpr int kThreadsPerChannel = 640;
// perChMaxTreeLL128Bw by generation [Volta, Ampere, Hopper, Blackwell], then nodes [1, 2, 3+],
// GB/s (../shared/reference/nccl-model.md, tuning.cc @5067397c).
constexpr std::array<std::array<double, 3>, 4> kPerChannelLl128_GBps{
    {{20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 29.0}, {55.6, 31.67, 20.0}}};

std::size_t index(Protocol p) {
  return static_cast<std::size_t>(p);  // ll, ll128, simple: the tables' column order
}

TaskId lower_across_nodes(Lowering& l, TaskId start) {
  const Communicator& comm = l.comm();
  const auto& rings = comm.rings();
  const int nodes = comm.node_count();
  const int tree_depth = dtree_max_depth(nodes);
  // The pipeline fills up a chain and the tree's deepest branch, and back down: every hop on
  // the way pays its step latency and its links' (the first channel's chain and network hop
  // stand for all); the sends then pay the last hop themselves.
  const auto first_chains = node_chains(comm, rings.front());
  double chain_s = 0;
  const auto& chain0 = first_chains.front();
  for (std::size_t i = 0; i + 1 < chain0.size(); ++i)
    chain_s += l.hop_s() + comm.route(chain0[i + 1], chain0[i]).latency_s();
  const double net_s =
      l.net_hop_s() + comm.route(first_chains[1].front(), first_chains[0].front()).latency_s();
  const double fill_s = std::max(0.0, 2 * (chain_s + tree_depth * net_s) - net_s);
  const TaskId fill = l.sim().add_delay(fill_s, {&start, 1});
  const double bytes = l.request().size_bytes / (2.0 * static_cast<double>(rings.size()));
  std::vector<TaskId> hops;
  auto both_ways = [&](int a, int b) {
    hops.push_back(l.send(a, b, bytes, {&fill, 1}));
    hops.push_back(l.send(b, a, bytes, {&fill, 1}));
  };
  for (const Ring& ring : rings) {
    const auto chains = node_chains(comm, ring);
    for (int t = 0; t < 2; ++t) {
      for (std::size_t j = 0; j < chains.size(); ++j) {
        const auto& chain = chains[j];
        for (std::size_t i = 0; i + 1 < chain.size(); ++i)
          both_ways(chain[i + 1], chain[i]);
        const int parent = dtree_parent(static_cast<int>(chains.size()), static_cast<int>(j), t);
        if (parent >= 0) both_ways(chain.front(), chains[static_cast<std::size_t>(parent)].front());
      }
    }
  }
  return l.sim().add_barrier(hops);
}

// Across nodes, slice by slice (slice_pipeline.hpp): every ring's channels run one of the two
// trees each (NCCL gives half its channels the mirrored tree), so each ring and tree carries
// size / (2 x rings). In each, the sum climbs every node's chain to its head and the tree to
// the root, children before parents, on the ranks' up streams; the result then streams back
// from the root, to the node's chain and its child heads, on the down streams. Each head's
// network sends go through NCCL's proxy (slots on the wire).
TaskId lower_across_nodes_by_slices(Lowering& l, TaskId start) {
  const Communicator& comm = l.comm();
  const auto& rings = comm.rings();
  const int nodes = comm.node_count();
  const int lanes = static_cast<int>(rings.size());
  const double per_stream = l.request().size_bytes / (2.0 * lanes);
  const int channels_per_stream = std::max(1, l.choice().channels / (2 * lanes));
  SlicePipeline pipe(
      tree_chunk_shape(l.choice().protocol, per_stream / channels_per_stream, nodes,
                       comm.ranks_per_node(), comm.simple_step_bytes(), l.request().nccl_version),
      channels_per_stream);
  pipe.overlap_link_latency();
  // Nodes deepest first (children before parents), and each node's children in node order, per
  // tree.
  std::array<std::vector<int>, 2> by_depth;
  std::array<std::vector<std::vector<int>>, 2> children;
  for (int t = 0; t < 2; ++t) {
    children[static_cast<std::size_t>(t)].resize(static_cast<std::size_t>(nodes));
    for (int j = 0; j < nodes; ++j) {
      by_depth[static_cast<std::size_t>(t)].push_back(j);
      const int parent = dtree_parent(nodes, j, t);
      if (parent >= 0) {
        children[static_cast<std::size_t>(t)][static_cast<std::size_t>(parent)].push_back(j);
      }
    }
    std::stable_sort(
        by_depth[static_cast<std::size_t>(t)].begin(), by_depth[static_cast<std::size_t>(t)].end(),
        [&](int a, int b) { return dtree_depth(nodes, a, t) > dtree_depth(nodes, b, t); });
  }
  const auto one = [](const int& id) { return std::span<const int>(&id, 1); };
  for (std::size_t x = 0; x < rings.size(); ++x) {
    const auto chains = node_chains(comm, rings[x]);
    for (int t = 0; t < 2; ++t) {
      const int up = static_cast<int>((x * 2 + static_cast<std::size_t>(t)) * 2);
      const int down = up + 1;
      const auto& order = by_depth[static_cast<std::size_t>(t)];
      // into_head[j]: the sends whose sums node j's head adds (its chain's and its children's).
      std::vector<std::vector<int>> into_head(static_cast<std::size_t>(nodes));
      for (int j : order) {
        const auto& chain = chains[static_cast<std::size_t>(j)];
        int prev = -1;
        for (std::size_t i = chain.size() - 1; i >= 1; --i) {
          prev = pipe.add(chain[i], chain[i - 1], up, per_stream,
                          prev >= 0 ? one(prev) : std::span<const int>());
        }
        if (prev >= 0) into_head[static_cast<std::size_t>(j)].push_back(prev);
        const int parent = dtree_parent(nodes, j, t);
        if (parent < 0) continue;
        const int sent = pipe.add(chain.front(), chains[static_cast<std::size_t>(parent)].front(),
                                  up, per_stream, into_head[static_cast<std::size_t>(j)]);
        into_head[static_cast<std::size_t>(parent)].push_back(sent);
      }
      // Down, parents first: a head forwards the result it holds (the root: its sum) to its
      // chain and its child heads.
      std::vector<int> result_at(static_cast<std::size_t>(nodes), -1);
      for (auto it = order.rbegin(); it != order.rend(); ++it) {
        const int j = *it;
        const auto& chain = chains[static_cast<std::size_t>(j)];
        const int parent = dtree_parent(nodes, j, t);
        const std::vector<int> holds =
            parent < 0 ? into_head[static_cast<std::size_t>(j)]
                       : std::vector<int>{result_at[static_cast<std::size_t>(j)]};
        for (const int k : children[static_cast<std::size_t>(t)][static_cast<std::size_t>(j)]) {
          result_at[static_cast<std::size_t>(k)] = pipe.add(
              chain.front(), chains[static_cast<std::size_t>(k)].front(), down, per_stream, holds);
        }
        if (chain.size() < 2) continue;
        int prev = pipe.add(chain[0], chain[1], down, per_stream, holds);
        for (std::size_t i = 1; i + 1 < chain.size(); ++i)
          prev = pipe.add(chain[i], chain[i + 1], down, per_stream, one(prev));
      }
    }
  }
  return pipe.emit(l, start);
}

// One node, one bulk flow per hop: the chain's every hop carries the buffer both ways at once
// after the pipeline fills over its 2(n-1) hops up and back (each send pays the last).
TaskId lower_by_steps(Lowering& l, TaskId start) {
  const auto& order = l.comm().rings().front().order;
  const int n = l.comm().size();
  const TaskId fill = l.sim().add_delay(l.hop_s() * (2 * (n - 1) - 1), {&start, 1});
  std::vector<TaskId> hops;
  for (std::size_t i = 0; i + 1 < order.size(); ++i) {
    hops.push_back(l.send(order[i + 1], order[i], l.request().size_bytes, {&fill, 1}));
    hops.push_back(l.send(order[i], order[i + 1], l.request().size_bytes, {&fill, 1}));
  }
  return l.sim().add_barrier(hops);
}

class TreeAlgorithm final : public CollectiveAlgorithm {
 public:
  std::string_view name() const override { return Algorithm::tree.name(); }

  std::vector<Op> operations() const override { return {Op::all_reduce}; }

  std::optional<std::string> why_ineligible(const Communicator& /*comm*/) const override {
    return std::nullopt;  // a chain through the ranks always exists
  }

  int channels(const Communicator& comm, Protocol p, double bytes) const override {
    // NCCL_NTHREADS sets Tree's LL and Simple maxThreads (tuning.cc), which computeColl's
    // channel rule reads before the kernel takes all 640.
    return nccl_channel_count(comm, comm.threads_per_channel(p, kThreadsPerChannel),
                              channel_threshold_bytes_per_thread(p), bytes);
  }

  double base_latency_s(Protocol p) const override { return kBaseLatency_us[index(p)] * kUs; }

  double hop_latency_s(Protocol p, HwClass c) const override {
    return kHopLatency_us[static_cast<std::size_t>(c)][index(p)] * kUs;
  }

  // tuning.cc, all-reduce only: busBw = channels x speed (the tree graph's), x0.92 up to
  // perChMaxTreeBw per channel; LL at 1/3.8 of it up to llMaxBw, LL128 at 7/9 on one node
  // (120/128 across) up to perChMaxTreeLL128Bw; algBw = busBw / 2. Latency: the base, then
  // 2 ((ppn - 1) intraLat + log2(nNodes) interLat), up and down the chain and the node tree.
  std::optional<NcclModelRow> nccl_model_row(const Communicator& comm, const NcclModelInputs& in,
                                             Op op, Protocol p) const override {
    const NcclTunerGraph& g = in.tree;
    if (g.channels <= 0 || op != Op::all_reduce) return std::nullopt;
    const auto column = static_cast<std::size_t>(std::min(in.nodes - 1, 2));
    double bus = g.channels * (in.nodes <= 2 ? g.intra_GBps : g.inter_GBps);
    bus = std::min(bus * .92, rank_cap_Bps(comm, Protocol::simple, g.channels) / kGBps);
    if (p == Protocol::ll) bus = std::min(bus / 3.8, in.llmax_GBps);
    if (p == Protocol::ll128) {
      bus = std::min(
          in.nodes == 1 ? bus * 7.0 / 9.0 : bus * 120.0 / 128.0,
          g.channels * kPerChannelLl128_GBps[static_cast<std::size_t>(in.generation)][column]);
    }
    // tuning.cc's further x0.85 applies when the tree search fell back to the simple TREE
    // pattern; linksim assumes the balanced-tree search succeeds (not modelled).
    NcclModelRow row;
    row.alg_GBps = bus * .5;
    const double intra_us = hop_latency_s(p, g.intra_class) / kUs;
    row.latency_us = base_latency_s(p) / kUs;
    if (in.nodes == 1) {
      row.latency_us += 2 * (in.ranks - 1) * intra_us;
    } else {
      row.latency_us += 2 * ((in.ppn - 1) * intra_us +
                             nccl_log2i(in.nodes) * nccl_inter_latency_us(in, id(), p, g));
    }
    return row;
  }

  double rank_cap_Bps(const Communicator& comm, Protocol p, int channels) const override {
    if (p != Protocol::simple) return CollectiveAlgorithm::rank_cap_Bps(comm, p, channels);
    const auto column = static_cast<std::size_t>(std::min(comm.node_count() - 1, 2));
    return channels *
           (kPerChannelSimple_GBps[static_cast<std::size_t>(comm.generation())][column] * kGBps);
  }

  // On one node the chain's inner ranks send the whole buffer up and the result down: 2 S.
  double least_bytes_sent_by_a_rank(const Communicator& comm,
                                    const Request& request) const override {
    if (comm.node_count() > 1 || comm.size() < 3) {
      return CollectiveAlgorithm::least_bytes_sent_by_a_rank(comm, request);
    }
    return 2 * request.size_bytes;
  }

  bool moves_only_over_rank_routes() const override { return true; }

  TaskId lower(Lowering& l, TaskId start) const override {
    if (l.comm().node_count() > 1) {
      return l.by_slices() ? lower_across_nodes_by_slices(l, start) : lower_across_nodes(l, start);
    }
    if (!l.by_slices()) return lower_by_steps(l, start);
    // One node: a chain through the ranks. The sum climbs to the root (order[0]) slice by
    // slice while the result streams back down, on separate warps (NCCL's tree split), so
    // each rank has an up stream and a down stream (slice_pipeline.hpp).
    const auto& order = l.comm().rings().front().order;
    const int n = l.comm().size();
    const double bytes = l.request().size_bytes;
    const int channels = l.choice().channels;
    SlicePipeline pipe(tree_chunk_shape(l.choice().protocol, bytes / channels, 1, n,
                                        l.comm().simple_step_bytes(), l.request().nccl_version),
                       channels);
    int prev = -1;
    for (int i = n - 2; i >= 0; --i) {
      const auto u = static_cast<std::size_t>(i);
      prev = pipe.add(order[u + 1], order[u], 0, bytes,
                      prev >= 0 ? std::span<const int>(&prev, 1) : std::span<const int>());
    }
    for (std::size_t i = 0; i + 1 < order.size(); ++i)
      prev = pipe.add(order[i], order[i + 1], 1, bytes, std::span<const int>(&prev, 1));
    return pipe.emit(l, start);
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
