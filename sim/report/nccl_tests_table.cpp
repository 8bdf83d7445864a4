#include "sim/report/nccl_tests_table.hpp"

#include <fmt/format.h>
#include <fmt/printf.h>
#include <fmt/ranges.h>

#include "sim/core/units.hpp"
#include "sim/topo/gpudirect.hpp"

namespace linksim::report {
namespace {

// The printf formats below are nccl-tests' own (src/util.cu @a0b82b22), hence fmt::sprintf.

constexpr const char* kVersion = "2.19.6";
constexpr const char* kFixedTime = "1970-01-01 00:00:00";

std::string preamble(const NcclTestsRun& r) {
  std::string out;
  out += fmt::sprintf("# nccl-tests version %s nccl-headers=%d nccl-library=%d\n", kVersion,
                      r.nccl_version, r.nccl_version);
  out += fmt::sprintf("# Collective test starting: %s\n", r.program);
  const bool factor = r.step_factor > 1;
  out += fmt::sprintf(
      "# nThread %d nGpus %d minBytes %ld maxBytes %ld step: %ld(%s) warmup iters: %d iters: %d "
      "agg iters: %d validation: %d graph: %d unalign: %d\n",
      r.threads, r.gpus_per_thread, r.min_bytes, r.max_bytes, factor ? r.step_factor : r.step_bytes,
      factor ? "factor" : "bytes", r.warmup_iters, r.iters, r.agg_iters, r.datacheck,
      r.graph_launches, r.unalign);
  if (r.blocking == 1) {
    out += "# Blocking Enabled: wait and barrier after each inner iteration (-m) \n";
  }
  if (r.blocking == 2)
    out += "# Blocking Enabled: wait after each inner iteration (-m), no barrier \n";
  if (r.blocking == 3) {
    out +=
        "# Blocking Enabled: wait and barrier after each outer iteration (-n); time excludes "
        "barrier \n";
  }
  if (r.per_iter_timing) {
    out += "# Per-Iteration Report: CUDA event timing; i_* uses max over process rows";
    if (r.per_iter_skip)
      out += fmt::sprintf("; summary skips first %d iterations", r.per_iter_skip);
    out += " \n";
  }
  if (r.parallel_init) {
    out += "# Parallel Init Enabled: threads call into NcclInitRank concurrently \n";
  }
  out += "#\n# Using devices\n";
  for (const auto& k : r.ranks) {
    out += fmt::sprintf("#  Rank %2d Group %2d Pid %6d on %10s device %2d [%s] %s\n", k.rank, 0,
                        k.pid, k.host, k.device, k.bus_id, k.gpu_name);
  }
  if (r.reduced_max_bytes) {
    out += fmt::sprintf("#\n# Reducing maxBytes to %ld due to memory limitation\n",
                        *r.reduced_max_bytes);
  }
  return out;
}

std::string table_header(const NcclTestsRun& r) {
  const char* t = r.report_cputime ? "cputime" : "time";
  std::string out = "#\n";
  if (r.per_iter_timing) {
    out += fmt::sprintf(
        "# %10s  %12s  %8s  %6s  %6s              out-of-place (+ per-iteration)                "
        "                in-place (+ per-iteration)\n",
        "", "", "", "", "");
    const char* f =
        "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %7s  %7s  %7s  %7s  %6s  %6s  "
        "%6s  %7s  %7s  %7s  %7s %*s\n";
    out += fmt::sprintf(f, "size", "count", "type", "redop", "root", t, "algbw", "busbw", "#wrong",
                        "i_min", "i_max", "i_p99", "i_cv%", t, "algbw", "busbw", "#wrong", "i_min",
                        "i_max", "i_p99", "i_cv%", 0, "");
    out += fmt::sprintf(f, "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)",
                        "(us)", "(us)", "(%)", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(us)",
                        "(us)", "(%)", 0, "");
    return out;
  }
  out += fmt::sprintf(
      "# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place        "
      "  \n",
      "", "", "", "", "");
  const char* f = "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %*s\n";
  out += fmt::sprintf(f, "size", "count", "type", "redop", "root", t, "algbw", "busbw", "#wrong", t,
                      "algbw", "busbw", "#wrong", 0, "");
  out += fmt::sprintf(f, "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)",
                      "(GB/s)", "(GB/s)", "", 0, "");
  return out;
}

// writeBenchmarkLineBody, and writePerIterReport's columns: every simulated iteration takes
// the same time, so min = max = p99 and the variation is 0.
// `o` is the row's out-of-place or in-place run.
std::string body(const NcclTestsRun& r, const coll::SweepRow& row, const coll::Outcome& o,
                 bool checked) {
  const double time_us = (r.report_cputime ? row.cpu_time_s : o.time_s) * 1e6;
  const std::string time = nccl_tests_float(time_us, 7);
  const std::string alg = nccl_tests_float(o.algbw_Bps / 1e9, 6);
  const std::string bus = nccl_tests_float(o.busbw_Bps / 1e9, 6);
  std::string out = checked ? fmt::sprintf("  %7s  %6s  %6s  %6g", time, alg, bus, 0.0)
                            : fmt::sprintf("  %7s  %6s  %6s    N/A", time, alg, bus);
  if (r.per_iter_timing) {
    const std::string it = nccl_tests_float(o.time_s * 1e6, 7);
    out += fmt::sprintf("  %7s  %7s  %7s  %7s", it, it, it, nccl_tests_float(0.0, 7));
  }
  return out;
}

// sendrecv.cu reports no errors for its in-place run (it does not support one).
bool in_place_checked(const NcclTestsRun& r) {
  return r.datacheck > 0 && r.program != "sendrecv_perf";
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    switch (c) {
      case '"':
      case '\\':
      case '/':
        out += '\\';
        out += c;
        break;
      case '\t':
        out += "\\t";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        // sanitizeJson stops at a character it cannot write.
        if (static_cast<unsigned char>(c) >= 0x7F || static_cast<unsigned char>(c) <= 0x1F) {
          return out + "\"";
        }
        out += c;
    }
  }
  return out + "\"";
}

std::string json_double(double v) {
  return v != v ? std::string("\"nan\"") : fmt::sprintf("%lf", v);
}

std::string json_bool(bool v) {
  return v ? "\"true\"" : "\"false\"";  // util.cu jsonBool writes strings
}

std::string json_list(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += ',';
    out += json_string(items[i]);
  }
  return out + "]";
}

std::string json_config(const NcclTestsRun& r) {
  std::string out =
      fmt::sprintf("{\"nthreads\":%d,\"ngpus\":%d,\"minimum_bytes\":%ld,\"maximum_bytes\":%ld,",
                   r.threads, r.gpus_per_thread, r.min_bytes, r.max_bytes);
  out += r.step_factor > 1 ? fmt::sprintf("\"step_factor\":%ld,", r.step_factor)
                           : fmt::sprintf("\"step_bytes\":%ld,", r.step_bytes);
  out += fmt::sprintf(
      "\"warmup_iters\":%d,\"iterations\":%d,\"aggregated_iterations\":%d,\"validation\":%d,"
      "\"graph\":%d,\"blocking_collectives\":%s,\"per_iter_timing\":%s,\"per_iter_skip\":%d,"
      "\"parallel_init\":%s,\"devices\":[",
      r.warmup_iters, r.iters, r.agg_iters, r.datacheck, r.graph_launches,
      json_bool(r.blocking != 0), json_bool(r.per_iter_timing != 0), r.per_iter_skip,
      json_bool(r.parallel_init != 0));
  for (std::size_t i = 0; i < r.ranks.size(); ++i) {
    const auto& k = r.ranks[i];
    out += fmt::sprintf(
        "%s{\"rank\":%d,\"group\":0,\"pid\":%d,\"hostname\":%s,\"device\":%d,\"device_hex\":%s,"
        "\"device_info\":%s}",
        i ? "," : "", k.rank, k.pid, json_string(k.host), k.device, json_string(k.bus_id),
        json_string(k.gpu_name));
  }
  return out + "]}";
}

std::string json_result(const NcclTestsRun& r, const coll::SweepRow& row) {
  std::string out =
      fmt::sprintf("{\"size\":%ld,\"count\":%ld,\"type\":%s,\"redop\":%s,\"root\":%s",
                   static_cast<long long>(row.size_bytes), row.count, json_string(row.type),
                   json_string(row.redop), json_string(fmt::sprintf("%6i", row.root)));
  const char* time_key = r.report_cputime ? "cpu_time" : "time";
  for (const bool out_of_place : {true, false}) {
    const bool checked = out_of_place ? r.datacheck > 0 : in_place_checked(r);
    const coll::Outcome& o = out_of_place ? row.outcome : row.in_place_outcome();
    const double time_us = (r.report_cputime ? row.cpu_time_s : o.time_s) * 1e6;
    out += fmt::sprintf(",\"%s\":{\"%s\":%s,\"alg_bw\":%s,\"bus_bw\":%s,\"nwrong\":%s}",
                        out_of_place ? "out_of_place" : "in_place", time_key, json_double(time_us),
                        json_double(o.algbw_Bps / 1e9), json_double(o.busbw_Bps / 1e9),
                        checked ? json_double(0) : std::string("null"));
  }
  return out + fmt::sprintf(",\"actual_iterations\":%d,\"experiment_name\":\"\"}", r.iters);
}

}  // namespace

std::string nccl_tests_float(double value, int width) {
  for (const char* f : {"%*.2f", "%*.1f", "%*.0f"}) {
    std::string s = fmt::sprintf(f, width, value);
    if (static_cast<int>(s.size()) <= width) return s;
  }
  return fmt::sprintf(width >= 7 ? "%*.1e" : "%*.0e", width, value).substr(0, width);
}

double nccl_tests_average_busbw_GBps(const std::vector<coll::SweepRow>& rows) {
  if (rows.empty()) return 0;
  double sum = 0;
  for (const auto& r : rows)
    sum += (r.outcome.busbw_Bps + r.in_place_outcome().busbw_Bps) / 1e9;
  return sum / (2.0 * static_cast<double>(rows.size()));
}

std::string format_nccl_tests(const NcclTestsRun& r, const std::vector<coll::SweepRow>& rows,
                              const RowNotes& notes, const std::string& before_table) {
  std::string out = preamble(r) + before_table + table_header(r);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& row = rows[i];
    out += fmt::sprintf("%12li  %12li  %8s  %6s  %6s", static_cast<long long>(row.size_bytes),
                        row.count, row.type, row.redop, fmt::sprintf("%6i", row.root));
    out += body(r, row, row.outcome, r.datacheck > 0) +
           body(r, row, row.in_place_outcome(), in_place_checked(r)) + "\n";
    if (i < notes.size() && !notes[i].empty()) out += notes[i] + "\n";
  }
  const double avg = nccl_tests_average_busbw_GBps(rows);
  const double check = r.min_bw_check_GBps;
  out += fmt::sprintf("# %-20s : %d %s\n", "Out of bounds values", 0, "OK");
  out += fmt::sprintf("# %-20s : %g %s\n", "Avg bus bandwidth", avg,
                      check == -1 ? "" : (avg < check * 0.9 ? "FAILED" : "OK"));
  out += "#\n";
  out += fmt::sprintf("# Collective test concluded: %s\n", r.program);
  out += "#\n";  // finalizeFooter
  out += "\n";   // writeErrors: no NCCL error
  return out;
}

std::string nccl_tests_json(const NcclTestsRun& r, const std::vector<coll::SweepRow>& rows,
                            const std::string& linksim_extras) {
  std::string out = fmt::sprintf("{\"version\":3,\"start_time\":%s,\"args\":%s,\"env\":%s,",
                                 json_string(kFixedTime), json_list(r.argv), json_list(r.env));
  out += fmt::sprintf("\"nccl_version\":%d,\"config\":%s,\"results\":[", r.nccl_version,
                      json_config(r));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (i) out += ',';
    out += json_result(r, rows[i]);
  }
  const double avg = nccl_tests_average_busbw_GBps(rows);
  const double check = r.min_bw_check_GBps;
  out += fmt::sprintf(
      "],\"out_of_bounds\":{\"count\":0,\"okay\":%s},\"average_bus_bandwidth\":{\"bandwidth\":%s,"
      "\"okay\":%s},\"errors\":[\"\"]",
      json_bool(true), json_double(avg),
      check == -1 ? std::string("\"unchecked\"") : json_bool(avg >= check * 0.9));
  if (!linksim_extras.empty()) out += ",\"linksim\":" + linksim_extras;
  out += fmt::sprintf(",\"end_time\":%s}", json_string(kFixedTime));
  return out;
}

// linksim's own notes, printed only when asked for (--explain) or on stderr.

namespace {

// Where a crossing's NIC traffic is staged through host memory (GPUDirect RDMA off:
// topo/gpudirect.hpp): which socket's memory, on which side, and why; empty when every NIC of
// the route moves GPU memory directly.
std::string staging_explanation(const coll::Communicator& comm, const topo::Route& r) {
  if (r.staging_cpus.empty()) return {};
  const auto& topo = comm.topology();
  const auto level = topo.cluster->fabric.gpudirect_rdma;
  std::string out;
  for (topo::NodeId nic : r.nics) {
    const bool send = topo.host_of(nic) == topo.host_of(r.src);
    // A PXN send is the proxy's: it reads its own memory into the NIC.
    topo::NodeId gpu = send ? r.src : r.dst;
    for (topo::NodeId p : r.proxies) {
      if (send && topo.host_of(p) == topo.host_of(nic)) gpu = p;
    }
    const topo::GdrCheck c = topo::check_gdr(comm.router(), gpu, nic, send, level);
    if (c.direct || !c.staging_cpu) continue;
    out += fmt::format("#     {} -> {}: host-staged through {}'s memory ({})\n",
                       topo.node(send ? gpu : nic).id, topo.node(send ? nic : gpu).id,
                       topo.node(*c.staging_cpu).id, c.reason);
  }
  return out;
}

// How each ring crosses from one node to the next: the GPUs, the NICs and their rails, and the
// GPU that forwards to the NIC over NVLink (PXN) where the last GPU has another rail; where
// GPUDirect RDMA is off, the host memory that stages the NIC traffic, and why.
std::string network_explanation(const coll::Communicator& comm) {
  const auto& topo = comm.topology();
  // With SHARP the rings' GPUs are also CollNet's heads, one per NIC (their NICs listed below).
  std::string out = fmt::format(
      "# linksim: {} nodes x {} GPUs; fabric {} {}{}{}; {} ring(s), each leaving every node by "
      "one NIC:\n",
      comm.node_count(), comm.ranks_per_node(), to_string(topo.cluster->fabric.kind),
      to_string(topo.cluster->fabric.shape),
      comm.in_network_reduction()
          ? "; in-network reduction (SHARP): CollNet heads are the rings' GPUs, one per NIC"
          : "",
      // NCCL's model adds it to every network step (latencyInter); it moves no data.
      comm.plugin_latency_us() > 0
          ? fmt::format("; its network plugin reports {:g} us to NCCL's model",
                        comm.plugin_latency_us())
          : std::string(),
      comm.rings().size());
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
      out += staging_explanation(comm, r);
      break;  // the first crossing speaks for the ring's others
    }
  }
  return out;
}

}  // namespace

std::string explain_network(const coll::Communicator& comm) {
  return comm.node_count() > 1 ? network_explanation(comm) : std::string();
}

std::string explain_row(const coll::SweepRow& row, const coll::Communicator& comm) {
  const auto& o = row.outcome;
  // NCCL runs no algorithm on one rank (coll::one_rank_copy_s): say what it does instead.
  if (comm.size() == 1) {
    const auto& gpu = comm.topology().node(comm.gpu(0)).gpu;
    const double copy_s = gpu ? coll::one_rank_copy_s(*gpu, row.size_bytes) : 0.0;
    return fmt::format(
        "#   -> one rank: no communication; out of place NCCL copies the send buffer into the "
        "receive buffer in the GPU's memory; bottleneck: {}",
        o.host_bound            ? "the host's kernel launches (host_launch)"
        : copy_s > o.time_s / 2 ? "the GPU's memory (the copy reads and writes every byte)"
                                : "none (latency-bound)");
  }
  const auto& c = o.choice;
  std::string out = fmt::format("#   -> {}/{} {} channel(s)", coll::to_string(c.algorithm),
                                coll::to_string(c.protocol), c.channels);
  // A small message may reach only some of the channels (NVLS's split, channel_work.hpp).
  if (o.data_channels > 0 && o.data_channels < c.channels) {
    out += fmt::format(", {} carrying data", o.data_channels);
  }
  out += fmt::format("; bottleneck: {}",
                     o.host_bound   ? std::string("the host's kernel launches (host_launch)")
                     : o.bottleneck ? comm.topology().channel_name(*o.bottleneck)
                                    : std::string("none (latency-bound)"));
  // Why NCCL runs it: its cost model's figures for it and for the next best.
  if (o.nccl_model_s) {
    if (!o.picked_by.empty()) out += fmt::format("; picked by {}", o.picked_by);
    out += fmt::format("; NCCL's model: {:.1f} us", *o.nccl_model_s * 1e6);
    if (o.nccl_runner_up) {
      out +=
          fmt::format(", {} {}/{} {:.1f} us", o.picked_by.empty() ? "next" : "its own pick",
                      coll::to_string(o.nccl_runner_up->algorithm),
                      coll::to_string(o.nccl_runner_up->protocol), o.nccl_runner_up_model_s * 1e6);
    }
  } else if (o.simulated_candidates > 1) {
    // Where some candidate has no row in NCCL's cost model, or with --simulate-candidates, the
    // choice is the fastest simulated: say so.
    out += fmt::format("; the fastest of {} candidates simulated", o.simulated_candidates);
  }
  // Streams that drift apart and never repeat a period: the time is extrapolated.
  if (o.trend) {
    out += fmt::format("; {} of {} loops simulated, the rest at their trend (no period repeats)",
                       o.trend->simulated_loops, o.trend->loops);
  }
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

}  // namespace linksim::report
