#include "sim/coll/nvbandwidth.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <stdexcept>

#include "sim/coll/copy_bench.hpp"
#include "sim/coll/route_paths.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/topo/link_payload.hpp"
#include "sim/topo/routing.hpp"

namespace linksim::coll {
namespace {

// Where a buffer lives: GPU `gpu`'s memory, or pinned host memory on GPU `gpu`'s socket.
struct End {
  int gpu = 0;
  bool host = false;
};
End device(int gpu) {
  return {gpu, false};
}
End host_of(int gpu) {
  return {gpu, true};
}

// One stream of the tool: `loop_count` copies of `buffer_bytes` from src to dst. A split-warp
// stream is one kernel copying half the buffer each way (the bidirectional host SM testcases).
struct Stream {
  End src;
  End dst;
  std::uint64_t buffer_bytes = 0;
  bool split_warp = false;
};

// Which figure of a set of copies the testcase reports (MemcpyOperation::BandwidthValue).
enum class Reported { first, each, total };

// The tool's PerformanceStatistic over `samples` equal samples: median or mean, computed as it
// computes them (a sum of the samples over their count for the mean).
double tool_metric(double value, unsigned samples, bool use_mean) {
  const std::vector<double> values(samples, value);
  if (use_mean) {
    double sum = 0;
    for (double v : values)
      sum += v;
    return sum / static_cast<double>(values.size());
  }
  const std::size_t n = values.size();
  return n % 2 == 0 ? (values[n / 2] + values[n / 2 - 1]) / 2.0 : values[n / 2];
}

class Runner {
 public:
  Runner(const topo::Topology& topo, const NvbTestcase& testcase, const NvbOptions& options)
      : topo_(topo),
        router_(topo),
        testcase_(testcase),
        options_(options),
        gpus_(topo.nodes_of(topo::NodeKind::gpu)),
        access_(peer_access(topo)) {}

  NvbResult run();

 private:
  int gpu_count() const { return static_cast<int>(gpus_.size()); }
  std::optional<topo::NodeId> node(End e) const {
    const topo::NodeId gpu = gpus_[static_cast<std::size_t>(e.gpu)];
    return e.host ? router_.host_socket(gpu) : std::optional<topo::NodeId>(gpu);
  }
  bool any_peer_pair() const;
  bool can_access(int a, int b) const {
    return access_[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)];
  }
  std::string title(std::string_view what) const {
    return fmt::format("memcpy {} {} bandwidth (GB/s)",
                       testcase_.initiator == CopyInitiator::ce ? "CE" : "SM", what);
  }
  // Runs streams together (nullopt if an end has no host memory or the GPU no memory figure);
  // figures in GB/s, one per stream, or one total.
  std::optional<std::vector<double>> measure(const std::vector<Stream>& streams, bool prefer_dst,
                                             Reported reported);
  std::vector<engine::PathShare> paths(engine::Simulation& sim, topo::NodeId src,
                                       topo::NodeId dst) const;
  // Adds a stream's copies (nullopt if an end has no memory to copy to); returns the bytes of
  // each copy and sets `last` to the stream's last task.
  std::optional<std::uint64_t> add_stream(engine::Simulation& sim, const Stream& s, bool prefer_dst,
                                          engine::TaskId& last) const;
  // A 1 x GPUs matrix: one set of streams per GPU (none: N/A).
  void host_row(const std::string& description,
                const std::function<std::vector<Stream>(int)>& streams, bool prefer_dst,
                Reported reported);
  // GPU x GPU matrices over the peer pairs: one per reported stream, and their total.
  void peer_matrix(const std::vector<std::string>& suffixes, std::string_view what,
                   bool bidirectional, bool prefer_dst);
  std::vector<Stream> host_streams(int gpu) const;
  // A 1 x GPUs matrix of all peers of each GPU copying into it (inbound) or from it, over the
  // time until the last copy ends.
  void fan_row(std::string_view what, bool inbound, bool prefer_dst);
  bool waived() const;

  const topo::Topology& topo_;
  const topo::Router router_;
  const NvbTestcase& testcase_;
  const NvbOptions& options_;
  const std::vector<topo::NodeId> gpus_;
  const std::vector<std::vector<bool>> access_;
  NvbResult result_;
};

bool Runner::any_peer_pair() const {
  for (int a = 0; a < gpu_count(); ++a) {
    for (int b = 0; b < gpu_count(); ++b) {
      if (a != b && can_access(a, b)) return true;
    }
  }
  return false;
}

std::vector<engine::PathShare> Runner::paths(engine::Simulation& sim, topo::NodeId src,
                                             topo::NodeId dst) const {
  if (src == dst) {
    // A copy within one GPU's memory: read and write share its bandwidth, and the tool counts
    // the bytes once.
    const double rate_Bps = topo_.node(src).gpu->hbm_bandwidth_Bps * kDramCopyEfficiency / 2;
    const engine::ChannelId memory = sim.add_channel(rate_Bps);
    return {{sim.add_path({&memory, 1}, 0.0), 1.0}};
  }
  const auto route = router_.route(src, dst);
  if (!route) throw std::logic_error("nvbandwidth: no route between two copy ends");
  return add_route_paths(sim, *route);
}

std::optional<std::uint64_t> Runner::add_stream(engine::Simulation& sim, const Stream& s,
                                                bool prefer_dst, engine::TaskId& last) const {
  const auto src = node(s.src);
  const auto dst = node(s.dst);
  if (!src || !dst) return std::nullopt;
  if (*src == *dst && topo_.node(*src).gpu->hbm_bandwidth_Bps <= 0) return std::nullopt;
  // dispatchMemcpy(): the source's context unless the testcase prefers the destination's;
  // host memory has none.
  const End context = (!prefer_dst && !s.src.host) || s.dst.host ? s.src : s.dst;
  const int sm_count = topo_.node(gpus_[static_cast<std::size_t>(context.gpu)]).gpu->sm_count;
  // copyKernelSplitWarp() copies whole 16-byte elements without the SM truncation.
  const std::uint64_t bytes =
      s.split_warp ? s.buffer_bytes / 16 * 16
                   : nvbandwidth_copy_bytes(s.buffer_bytes, testcase_.initiator, sm_count);
  const int src_gpu = s.src.host ? engine::kNoGpu : s.src.gpu;
  const int dst_gpu = s.dst.host ? engine::kNoGpu : s.dst.gpu;
  const auto there = paths(sim, *src, *dst);
  const auto loops = static_cast<double>(options_.loop_count);
  engine::TaskId prev = sim.add_delay(kCopyLaunch_s, {});
  if (testcase_.initiator == CopyInitiator::ce) {
    // One cuMemcpyAsync per copy, each started in turn on the stream.
    for (std::uint64_t l = 0; l < options_.loop_count; ++l) {
      if (l > 0) prev = sim.add_delay(kCopyLaunch_s, {&prev, 1});
      prev = sim.add_transfer(static_cast<double>(bytes), there, src_gpu, dst_gpu, {&prev, 1});
    }
  } else if (!s.split_warp) {
    // One kernel that loops over the copies.
    prev =
        sim.add_transfer(static_cast<double>(bytes) * loops, there, src_gpu, dst_gpu, {&prev, 1});
  } else {
    const auto back = paths(sim, *dst, *src);
    const double half = static_cast<double>(bytes) / 2 * loops;
    const engine::TaskId both[] = {sim.add_transfer(half, there, src_gpu, dst_gpu, {&prev, 1}),
                                   sim.add_transfer(half, back, dst_gpu, src_gpu, {&prev, 1})};
    prev = sim.add_barrier(both);
  }
  last = prev;
  return bytes;
}

std::optional<std::vector<double>> Runner::measure(const std::vector<Stream>& streams,
                                                   bool prefer_dst, Reported reported) {
  engine::Simulation sim(topo::payload_capacities_Bps(topo_), gpus_.size());
  std::vector<engine::TaskId> last(streams.size());
  std::vector<std::uint64_t> copy_bytes;
  for (std::size_t i = 0; i < streams.size(); ++i) {
    const auto bytes = add_stream(sim, streams[i], prefer_dst, last[i]);
    if (!bytes) return std::nullopt;
    copy_bytes.push_back(*bytes);
  }
  engine::RunOptions run_options;
  run_options.record_intervals = false;
  const engine::Timeline timeline = sim.run(run_options);

  NvbMeasurement m;
  std::vector<double> figures_GBps;
  double last_end_s = 0;
  for (std::size_t i = 0; i < streams.size(); ++i) {
    const double end_s = timeline.task_end_s[last[i]];
    last_end_s = std::max(last_end_s, end_s);
    std::uint64_t bw = nvbandwidth_stream_Bps(copy_bytes[i], options_.loop_count, end_s);
    // MemcpyInitiatorSMSplitWarp::getAdjustedBandwidth(): half each way.
    if (streams[i].split_warp) bw /= 2;
    const int src_gpu = streams[i].src.host ? -1 : streams[i].src.gpu;
    const int dst_gpu = streams[i].dst.host ? -1 : streams[i].dst.gpu;
    m.streams.push_back({src_gpu, dst_gpu, static_cast<double>(bw) * 1e-9});
    figures_GBps.push_back(
        tool_metric(static_cast<double>(bw), options_.samples, options_.use_mean) * 1e-9);
  }
  if (reported == Reported::total) {
    // calculateTotalBandwidth(): all bytes over the time from the start to the last end, in the
    // tool's floating-point order.
    double total_bytes = 0;
    for (std::uint64_t b : copy_bytes)
      total_bytes += static_cast<double>(b);
    const double elapsed_us = static_cast<double>(static_cast<float>(last_end_s * 1e3)) * 1000.0;
    const double total_Bps =
        total_bytes * static_cast<double>(options_.loop_count) * 1000ull * 1000ull / elapsed_us;
    m.total_GBps = total_Bps * 1e-9;
    figures_GBps = {tool_metric(total_Bps, options_.samples, options_.use_mean) * 1e-9};
  } else if (reported == Reported::first) {
    figures_GBps.resize(1);
  }
  result_.measurements.push_back(std::move(m));
  return figures_GBps;
}

void Runner::host_row(const std::string& description,
                      const std::function<std::vector<Stream>(int)>& streams, bool prefer_dst,
                      Reported reported) {
  NvbMatrix m{std::string(testcase_.key), description, 1, gpu_count(), {}};
  m.cells_GBps.resize(gpus_.size());
  for (int g = 0; g < gpu_count(); ++g) {
    const auto set = streams(g);
    if (set.empty()) continue;
    const auto figures = measure(set, prefer_dst, reported);
    if (figures) m.cells_GBps[static_cast<std::size_t>(g)] = figures->front();
  }
  result_.matrices.push_back(std::move(m));
}

void Runner::peer_matrix(const std::vector<std::string>& suffixes, std::string_view what,
                         bool bidirectional, bool prefer_dst) {
  const int n = gpu_count();
  std::vector<NvbMatrix> out;
  for (const auto& suffix : suffixes) {
    out.push_back({std::string(testcase_.key) + suffix, "", n, n, {}});
    out.back().cells_GBps.resize(static_cast<std::size_t>(n * n));
  }
  const bool read = testcase_.pattern == NvbPattern::device_read ||
                    testcase_.pattern == NvbPattern::device_bidir_read;
  for (int row = 0; row < n; ++row) {
    for (int peer = 0; peer < n; ++peer) {
      if (row == peer || !can_access(row, peer)) continue;
      std::vector<Stream> set;
      const std::uint64_t b = options_.buffer_bytes;
      if (bidirectional) {
        // The same two copies for reads and writes (peer -> row, row -> peer); only the
        // issuing context differs.
        set = {{device(peer), device(row), b}, {device(row), device(peer), b}};
      } else {
        set = {read ? Stream{device(peer), device(row), b} : Stream{device(row), device(peer), b}};
      }
      const auto figures =
          measure(set, prefer_dst, bidirectional ? Reported::each : Reported::first);
      if (!figures) continue;
      const auto cell = static_cast<std::size_t>(row * n + peer);
      for (std::size_t i = 0; i < figures->size(); ++i)
        out[i].cells_GBps[cell] = (*figures)[i];
      if (bidirectional) out[2].cells_GBps[cell] = (*figures)[0] + (*figures)[1];
    }
  }
  const char* kinds[] = {read ? "Read1" : "Write1", read ? "Read2" : "Write2", "Total"};
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i].description =
        bidirectional ? title(fmt::format("GPU(row) <-> GPU(column) {}", kinds[i])) : title(what);
  }
  for (auto& m : out)
    result_.matrices.push_back(std::move(m));
}

// The streams of the host testcases for measured GPU `g` (the first stream is measured).
std::vector<Stream> Runner::host_streams(int g) const {
  const std::uint64_t b = options_.buffer_bytes;
  const bool sm = testcase_.initiator == CopyInitiator::sm;
  std::vector<Stream> s;
  const auto others = [&](auto add) {
    for (int k = 0; k < gpu_count(); ++k) {
      if (k != g) add(k);
    }
  };
  switch (testcase_.pattern) {
    case NvbPattern::host_to_device:
      return {{host_of(g), device(g), b}};
    case NvbPattern::device_to_host:
      return {{device(g), host_of(g), b}};
    case NvbPattern::host_to_device_bidir:
      if (sm) return {{host_of(g), device(g), b, true}};
      return {{host_of(g), device(g), b}, {device(g), host_of(g), 2 * b}};
    case NvbPattern::device_to_host_bidir:
      // The SM testcase runs the same split-warp kernel, host buffer first.
      if (sm) return {{host_of(g), device(g), b, true}};
      return {{device(g), host_of(g), b}, {host_of(g), device(g), 2 * b}};
    case NvbPattern::all_to_host:
      s.push_back({device(g), host_of(g), b});
      others([&](int k) { s.push_back({device(k), host_of(k), 2 * b}); });
      return s;
    case NvbPattern::host_to_all:
      s.push_back({host_of(g), device(g), b});
      others([&](int k) { s.push_back({host_of(k), device(k), 2 * b}); });
      return s;
    case NvbPattern::all_to_host_bidir:
    case NvbPattern::host_to_all_bidir: {
      const bool to_host = testcase_.pattern == NvbPattern::all_to_host_bidir;
      const Stream measured =
          to_host ? Stream{device(g), host_of(g), b, sm} : Stream{host_of(g), device(g), b, sm};
      s.push_back(measured);
      if (!sm) s.push_back({measured.dst, measured.src, 2 * b});
      others([&](int k) {
        // SM: one split-warp kernel per other GPU; CE: a copy each way, twice the buffer.
        if (sm) {
          s.push_back({device(k), host_of(k), b, true});
        } else {
          s.push_back({device(k), host_of(k), 2 * b});
          s.push_back({host_of(k), device(k), 2 * b});
        }
      });
      return s;
    }
    default:
      throw std::logic_error("nvbandwidth: not a host testcase");
  }
}

// filter(): the testcases between peers need a pair with peer access; the latency testcases
// are not simulated.
bool Runner::waived() const {
  const auto p = testcase_.pattern;
  if (!nvbandwidth_simulates(p)) return true;
  const bool peers = p == NvbPattern::device_read || p == NvbPattern::device_write ||
                     p == NvbPattern::device_bidir_read || p == NvbPattern::device_bidir_write ||
                     p == NvbPattern::all_to_one_write || p == NvbPattern::all_to_one_read ||
                     p == NvbPattern::one_to_all_write || p == NvbPattern::one_to_all_read;
  return peers && !any_peer_pair();
}

void Runner::fan_row(std::string_view what, bool inbound, bool prefer_dst) {
  host_row(
      title(what),
      [&](int g) {
        std::vector<Stream> s;
        for (int k = 0; k < gpu_count(); ++k) {
          if (k == g || !can_access(g, k)) continue;
          s.push_back(inbound ? Stream{device(k), device(g), options_.buffer_bytes}
                              : Stream{device(g), device(k), options_.buffer_bytes});
        }
        return s;
      },
      prefer_dst, Reported::total);
}

NvbResult Runner::run() {
  const auto p = testcase_.pattern;
  const bool ce = testcase_.initiator == CopyInitiator::ce;
  if (waived()) {
    result_.waived = true;
    return std::move(result_);
  }
  const auto host = [&](std::string_view what) {
    host_row(
        title(what), [&](int g) { return host_streams(g); }, false, Reported::first);
  };
  switch (p) {
    case NvbPattern::host_to_device:
    case NvbPattern::host_to_all:
      host("CPU(row) -> GPU(column)");
      break;
    case NvbPattern::device_to_host:
    case NvbPattern::all_to_host:
      host("CPU(row) <- GPU(column)");
      break;
    case NvbPattern::host_to_device_bidir:
    case NvbPattern::device_to_host_bidir:
    case NvbPattern::all_to_host_bidir:
    case NvbPattern::host_to_all_bidir:
      host("CPU(row) <-> GPU(column)");
      break;
    case NvbPattern::device_read:
      peer_matrix({""}, "GPU(row) -> GPU(column)", false, true);
      break;
    case NvbPattern::device_write:
      peer_matrix({""}, "GPU(row) <- GPU(column)", false, false);
      break;
    case NvbPattern::device_bidir_read:
      peer_matrix({"_read1", "_read2", "_total"}, "", true, true);
      break;
    case NvbPattern::device_bidir_write:
      peer_matrix({"_write1", "_write2", "_total"}, "", true, false);
      break;
    case NvbPattern::all_to_one_write:
      fan_row("GPU(row) <- GPU(column)", true, false);
      break;
    case NvbPattern::all_to_one_read:
      fan_row("GPU(row) -> GPU(column)", false, ce);
      break;
    case NvbPattern::one_to_all_write:
      fan_row("GPU(row) -> GPU(column)", false, false);
      break;
    case NvbPattern::one_to_all_read:
      fan_row("GPU(row) <- GPU(column)", true, ce);
      break;
    case NvbPattern::device_local_copy:
      host_row(
          "memcpy local GPU(column) bandwidth (GB/s)",
          [&](int g) {
            return std::vector<Stream>{{device(g), device(g), options_.buffer_bytes}};
          },
          false, Reported::first);
      break;
    case NvbPattern::host_device_latency:
    case NvbPattern::device_latency:
      break;
  }
  return std::move(result_);
}

}  // namespace

std::uint64_t nvbandwidth_copy_bytes(std::uint64_t buffer_bytes, CopyInitiator initiator,
                                     int sm_count) {
  if (initiator == CopyInitiator::ce) return buffer_bytes;
  std::uint64_t elements = buffer_bytes / 16;
  const std::uint64_t threads =
      static_cast<std::uint64_t>(std::max(sm_count, 0)) * kNvbThreadsPerBlock;
  if (buffer_bytes >= kNvbSmallBufferBytes && threads > 0)
    elements = threads * (elements / threads);
  return elements * 16;
}

std::uint64_t nvbandwidth_stream_Bps(std::uint64_t copy_bytes, std::uint64_t loop_count,
                                     double elapsed_s) {
  const float elapsed_ms = static_cast<float>(elapsed_s * 1e3);
  // A copy under a microsecond would divide by zero in the tool; linksim counts one.
  const auto elapsed_us = std::max<std::uint64_t>(
      static_cast<std::uint64_t>(static_cast<double>(elapsed_ms) * 1000.0), 1);
  return copy_bytes * loop_count * 1000ull * 1000ull / elapsed_us;
}

NvbResult run_nvbandwidth(const topo::Topology& topo, const NvbTestcase& testcase,
                          const NvbOptions& options) {
  return Runner(topo, testcase, options).run();
}

}  // namespace linksim::coll
