#include "sim/report/nccl_tests_table.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/core/units.hpp"

namespace linksim::report {
namespace {

// How each ring crosses from one node to the next: the GPUs, the NICs and their rails, and the
// GPU that forwards to the NIC over NVLink (PXN) where the last GPU has another rail.
std::string network_explanation(const coll::Communicator& comm) {
  const auto& topo = comm.topology();
  std::string out = fmt::format(
      "# linksim: {} nodes x {} GPUs; fabric {} {}; {} ring(s), each leaving every node by one "
      "NIC:\n",
      comm.node_count(), comm.ranks_per_node(), to_string(topo.cluster->fabric.kind),
      to_string(topo.cluster->fabric.shape), comm.rings().size());
  for (std::size_t k = 0; k < comm.rings().size(); ++k) {
    const auto& order = comm.rings()[k].order;
    for (std::size_t i = 0; i < order.size(); ++i) {
      const int from = order[i];
      const int to = order[(i + 1) % order.size()];
      if (!comm.crosses_nodes(from, to)) continue;
      const auto& r = comm.route(from, to);
      std::vector<std::string> nics;
      for (auto n : r.nics)
        nics.push_back(fmt::format("{} (rail {})", topo.node(n).id, topo.node(n).nic->rail));
      std::vector<std::string> proxies;
      for (auto g : r.proxies)
        proxies.push_back(topo.node(g).id);
      out +=
          fmt::format("#   ring {:2d}: {} -> {} via {}{}\n", k, topo.node(comm.gpu(from)).id,
                      topo.node(comm.gpu(to)).id, fmt::join(nics, ", "),
                      proxies.empty() ? std::string()
                                      : fmt::format("; PXN through {}", fmt::join(proxies, ", ")));
      break;  // the first crossing speaks for the ring's others
    }
  }
  return out;
}

// common.cu: times print with fewer decimals as they grow, to fit 7 characters.
std::string time_text(double us) {
  if (us >= 10000.0) return fmt::format("{:7.0f}", us);
  if (us >= 100.0) return fmt::format("{:7.1f}", us);
  return fmt::format("{:7.2f}", us);
}

std::string result_columns(const coll::Outcome& o) {
  return fmt::format("  {}  {:6.2f}  {:6.2f}  {:>6}", time_text(o.time_s * 1e6), o.algbw_Bps / 1e9,
                     o.busbw_Bps / 1e9, "N/A");
}

}  // namespace

std::string format_nccl_tests(const NcclTestsHeader& h, const std::vector<coll::SweepRow>& rows,
                              const coll::Communicator& comm, bool explain) {
  std::string out;
  out += fmt::format("# linksim simulation of nccl-tests {} on {} (no GPU was used)\n", h.binary,
                     h.machine);
  const std::string step = h.step_factor > 1 ? fmt::format("{}(factor)", h.step_factor)
                                             : fmt::format("{}(bytes)", h.step_bytes);
  const std::size_t ranks = h.gpu_models.size();
  const std::size_t per_thread = h.gpus_per_thread > 0 ? h.gpus_per_thread : ranks;
  out += fmt::format(
      "# nThread {} nGpus {} minBytes {:.0f} maxBytes {:.0f} step: {} warmup iters: 1 iters: {} "
      "agg iters: 1 validation: 0 graph: 0 unalign: 0\n",
      ranks / std::max<std::size_t>(per_thread, 1), per_thread, h.min_bytes, h.max_bytes, step,
      h.iterations);
  out += "#\n# Using devices\n";
  const auto& topo = comm.topology();
  for (std::size_t r = 0; r < h.gpu_models.size(); ++r) {
    const int rank = static_cast<int>(r);
    // On a cluster each rank runs on its node, numbered as that node numbers its GPUs.
    const std::string host = topo.is_cluster() ? fmt::format("node{}", comm.host(rank)) : h.machine;
    const int device = topo.is_cluster() ? comm.gpu_index(rank) % topo.cluster->gpus_per_host
                                         : comm.gpu_index(rank);
    out += fmt::format("#  Rank {:2d} Group  0 Pid      0 on {:>10} device {:2d} [sim] {}\n", r,
                       host, device, h.gpu_models[r]);
  }
  out += "#\n";
  if (explain && comm.node_count() > 1) out += network_explanation(comm);
  out +=
      "#                                                              out-of-place                "
      "       in-place          \n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     "
      "time   algbw   busbw #wrong\n"
      "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            "
      "(us)  (GB/s)  (GB/s)       \n";
  for (const auto& row : rows) {
    out += fmt::format("{:12.0f}  {:12d}  {:>8}  {:>6}  {:6d}", row.size_bytes, row.count, row.type,
                       row.redop, row.root);
    out += result_columns(row.outcome) + result_columns(row.outcome) + "\n";
    if (explain) {
      const auto& c = row.outcome.choice;
      out += fmt::format(
          "#   -> {}/{} {} channel(s); bottleneck: {}\n", coll::to_string(c.algorithm),
          coll::to_string(c.protocol), c.channels,
          row.outcome.host_bound   ? std::string("the host's kernel launches (host_launch)")
          : row.outcome.bottleneck ? comm.topology().channel_name(*row.outcome.bottleneck)
                                   : std::string("none (latency-bound)"));
    }
  }
  out += "# Out of bounds values : N/A (simulated: no data is checked)\n";
  out += fmt::format("# Avg bus bandwidth    : {:g} \n", coll::average_busbw_Bps(rows) / 1e9);
  out += "#\n";
  return out;
}

std::string format_nccl_tests_range(const std::vector<coll::SweepRow>& rows,
                                    const coll::SweepRange& range) {
  std::string out =
      "# linksim: calibrated machine; busbw (GB/s) with every fitted figure at its 95% bounds\n";
  out += fmt::format("# {:>12} {:>10} {:>10} {:>10}\n", "size", "slow", "nominal", "fast");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    out += fmt::format("# {:>12} {:>10.2f} {:>10.2f} {:>10.2f}\n",
                       static_cast<long long>(rows[i].size_bytes),
                       range.slow.at(i).outcome.busbw_Bps / 1e9, rows[i].outcome.busbw_Bps / 1e9,
                       range.fast.at(i).outcome.busbw_Bps / 1e9);
  }
  return out;
}

Json nccl_tests_json(const NcclTestsHeader& h, const std::vector<coll::SweepRow>& rows,
                     const coll::SweepRange* range) {
  Json doc;
  doc["binary"] = h.binary;
  doc["machine"] = h.machine;
  doc["simulated"] = true;
  Json results = Json::array();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const coll::SweepRow& row = rows[i];
    Json r;
    r["size"] = static_cast<long long>(row.size_bytes);
    r["count"] = row.count;
    r["type"] = row.type;
    r["redop"] = row.redop;
    r["root"] = row.root;
    for (const char* placement : {"out_of_place", "in_place"}) {
      r[placement] = Json{{"time", row.outcome.time_s * 1e6},
                          {"alg_bw", row.outcome.algbw_Bps / 1e9},
                          {"bus_bw", row.outcome.busbw_Bps / 1e9},
                          {"wrong", "N/A"}};
    }
    r["algorithm"] = std::string(coll::to_string(row.outcome.choice.algorithm));
    r["protocol"] = std::string(coll::to_string(row.outcome.choice.protocol));
    r["channels"] = row.outcome.choice.channels;
    if (range) {
      r["time_range"] = {range->fast.at(i).outcome.time_s * 1e6,
                         range->slow.at(i).outcome.time_s * 1e6};
      r["bus_bw_range"] = {range->slow.at(i).outcome.busbw_Bps / 1e9,
                           range->fast.at(i).outcome.busbw_Bps / 1e9};
    }
    results.push_back(r);
  }
  doc["results"] = results;
  doc["average_bus_bandwidth"] = coll::average_busbw_Bps(rows) / 1e9;
  return doc;
}

}  // namespace linksim::report
