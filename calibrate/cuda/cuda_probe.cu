// CUDA implementation of the calibration probe: pinned H2D/D2H per GPU, device-local copies,
// peer copies for every pair with P2P off and on (one way and both ways), all GPUs' H2D at once,
// kernel-launch and 1-byte peer-copy latency, a cuBLAS SGEMM, and (with NCCL) all_reduce /
// all_gather sweeps. Every timing is warm-up runs (discarded), then `repeats` runs each timed
// with cudaEvents; the record holds the median and the spread (max - min). Every CUDA, cuBLAS
// and NCCL call is checked; a failure throws std::runtime_error naming the call.

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>
#if defined(LINKSIM_HAVE_NCCL)
#include <nccl.h>
#endif

#include "calibrate/cuda/cuda_probe.hpp"
#include "calibrate/sysfs.hpp"

namespace linksim::calibrate {
namespace {

void check(cudaError_t e, const char* call) {
  if (e != cudaSuccess) {
    throw std::runtime_error(std::string(call) + ": " + cudaGetErrorString(e));
  }
}
void check(cublasStatus_t s, const char* call) {
  if (s != CUBLAS_STATUS_SUCCESS) {
    throw std::runtime_error(std::string(call) + ": cuBLAS status " + std::to_string(int(s)));
  }
}
#if defined(LINKSIM_HAVE_NCCL)
void check(ncclResult_t r, const char* call) {
  if (r != ncclSuccess) throw std::runtime_error(std::string(call) + ": " + ncclGetErrorString(r));
}
#endif
#define LS_CHECK(call) check((call), #call)

__global__ void empty_kernel() {}

struct Stats {
  double median_s = 0;
  double spread_s = 0;
  int repeats = 0;
};

// Runs `enqueue` on `stream` warmup times untimed, then `repeats` times between two events.
Stats time_on(cudaStream_t stream, int warmup, int repeats, const std::function<void()>& enqueue) {
  cudaEvent_t start = nullptr;
  cudaEvent_t stop = nullptr;
  LS_CHECK(cudaEventCreate(&start));
  LS_CHECK(cudaEventCreate(&stop));
  for (int i = 0; i < warmup; ++i)
    enqueue();
  LS_CHECK(cudaStreamSynchronize(stream));
  std::vector<double> times;
  for (int i = 0; i < repeats; ++i) {
    LS_CHECK(cudaEventRecord(start, stream));
    enqueue();
    LS_CHECK(cudaEventRecord(stop, stream));
    LS_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    LS_CHECK(cudaEventElapsedTime(&ms, start, stop));
    times.push_back(static_cast<double>(ms) * 1e-3);
  }
  LS_CHECK(cudaEventDestroy(start));
  LS_CHECK(cudaEventDestroy(stop));
  std::sort(times.begin(), times.end());
  Stats s;
  s.repeats = repeats;
  s.median_s = times[times.size() / 2];
  s.spread_s = times.back() - times.front();
  return s;
}

Record make_record(const char* kind, const std::string& variant, int src, int dst, int gpus,
                   double size, double counted_bytes, const Stats& s) {
  Record r;
  r.kind = kind;
  r.variant = variant;
  r.src_gpu = src;
  r.dst_gpu = dst;
  r.gpu_count = gpus;
  r.size_bytes = size;
  r.time_s = s.median_s;
  r.bandwidth_Bps = s.median_s > 0 ? counted_bytes / s.median_s : 0;
  r.repeats = s.repeats;
  r.time_spread_s = s.spread_s;
  r.source_file = "linksim calibrate (CUDA probe)";
  return r;
}

class CudaProbe : public Probe {
 public:
  explicit CudaProbe(int count) : count_(count) {}

  std::vector<DeviceInfo> discover() override {
    std::vector<DeviceInfo> out;
    for (int d = 0; d < count_; ++d) {
      cudaDeviceProp p{};
      LS_CHECK(cudaGetDeviceProperties(&p, d));
      char bus[32] = {};
      LS_CHECK(cudaDeviceGetPCIBusId(bus, sizeof(bus), d));
      DeviceInfo info;
      info.index = d;
      info.name = p.name;
      info.pci_bus_id = bus;
      info.memory_bytes = static_cast<double>(p.totalGlobalMem);
      info.sm_count = p.multiProcessorCount;
      info.compute_major = p.major;
      info.compute_minor = p.minor;
      fill_from_sysfs(info);
      out.push_back(info);
    }
    return out;
  }

  ProbeResult run(const ProbePlan& plan) override {
    ProbeResult result;
    result.devices = discover();
    const double max_size = largest_size(plan);
    std::vector<double> sizes;
    for (double s : plan.sizes_bytes) {
      if (s <= max_size) sizes.push_back(s);
    }
    if (sizes.size() < plan.sizes_bytes.size()) {
      result.notes.push_back("largest copy sizes skipped: not enough free device memory");
    }
    for (int d = 0; d < count_; ++d)
      host_device(d, plan, sizes, result);
    if (count_ < 2) {
      result.notes.push_back("1 GPU: no peer links, so no peer copies were measured");
    } else if (plan.peers) {
      for (int a = 0; a < count_; ++a) {
        for (int b = 0; b < count_; ++b) {
          if (a != b) peer(a, b, plan, sizes, result);
        }
      }
    }
    if (plan.concurrent && count_ >= 2) concurrent_h2d(plan, sizes.back(), result);
    if (plan.gemm) {
      for (int d = 0; d < count_; ++d)
        gemm(d, plan, result);
    }
#if defined(LINKSIM_HAVE_NCCL)
    if (plan.collectives && count_ >= 2) collectives(plan, sizes, result);
#else
    if (plan.collectives && count_ >= 2)
      result.notes.push_back("built without NCCL: no collective sweep");
#endif
    return result;
  }

 private:
  // The plan's largest size that fits three buffers in a quarter of the smallest free memory.
  double largest_size(const ProbePlan& plan) {
    double free_min = 0;
    for (int d = 0; d < count_; ++d) {
      LS_CHECK(cudaSetDevice(d));
      size_t free_b = 0, total_b = 0;
      LS_CHECK(cudaMemGetInfo(&free_b, &total_b));
      free_min = d == 0 ? double(free_b) : std::min(free_min, double(free_b));
    }
    double limit = free_min / 12;
    double best = plan.sizes_bytes.empty() ? 0 : plan.sizes_bytes.front();
    for (double s : plan.sizes_bytes) {
      if (s <= limit) best = std::max(best, s);
    }
    return best;
  }

  void host_device(int d, const ProbePlan& plan, const std::vector<double>& sizes,
                   ProbeResult& out) {
    const size_t max_bytes = static_cast<size_t>(sizes.back());
    LS_CHECK(cudaSetDevice(d));
    cudaStream_t stream = nullptr;
    LS_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    void* host = nullptr;
    void* dev_a = nullptr;
    void* dev_b = nullptr;
    LS_CHECK(cudaMallocHost(&host, max_bytes));
    LS_CHECK(cudaMalloc(&dev_a, max_bytes));
    LS_CHECK(cudaMalloc(&dev_b, max_bytes));
    for (double size : sizes) {
      const size_t n = static_cast<size_t>(size);
      Stats h2d = time_on(stream, plan.warmup, plan.repeats, [&] {
        LS_CHECK(cudaMemcpyAsync(dev_a, host, n, cudaMemcpyHostToDevice, stream));
      });
      out.records.push_back(make_record("h2d", "pinned", -1, d, 1, size, size, h2d));
      Stats d2h = time_on(stream, plan.warmup, plan.repeats, [&] {
        LS_CHECK(cudaMemcpyAsync(host, dev_a, n, cudaMemcpyDeviceToHost, stream));
      });
      out.records.push_back(make_record("d2h", "pinned", d, -1, 1, size, size, d2h));
      Stats d2d = time_on(stream, plan.warmup, plan.repeats, [&] {
        LS_CHECK(cudaMemcpyAsync(dev_b, dev_a, n, cudaMemcpyDeviceToDevice, stream));
      });
      // Read + write, as bandwidthTest counts a device-local copy.
      out.records.push_back(make_record("d2d", "pinned", d, d, 1, size, 2 * size, d2d));
    }
    if (plan.latency) {
      Stats launch = time_on(stream, plan.warmup, plan.repeats * 10, [&] {
        empty_kernel<<<1, 1, 0, stream>>>();
        LS_CHECK(cudaGetLastError());
      });
      out.records.push_back(make_record("launch_latency", "empty kernel", d, d, 1, 0, 0, launch));
    }
    LS_CHECK(cudaFreeHost(host));
    LS_CHECK(cudaFree(dev_a));
    LS_CHECK(cudaFree(dev_b));
    LS_CHECK(cudaStreamDestroy(stream));
  }

  void peer(int a, int b, const ProbePlan& plan, const std::vector<double>& sizes,
            ProbeResult& out) {
    int can = 0;
    LS_CHECK(cudaDeviceCanAccessPeer(&can, a, b));
    const size_t max_bytes = static_cast<size_t>(sizes.back());
    void* buf_a = nullptr;
    void* buf_b = nullptr;
    void* back_a = nullptr;
    cudaStream_t s0 = nullptr;
    cudaStream_t s1 = nullptr;
    LS_CHECK(cudaSetDevice(b));
    LS_CHECK(cudaMalloc(&buf_b, max_bytes));
    LS_CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    LS_CHECK(cudaSetDevice(a));
    LS_CHECK(cudaMalloc(&buf_a, max_bytes));
    LS_CHECK(cudaMalloc(&back_a, max_bytes));
    LS_CHECK(cudaStreamCreateWithFlags(&s0, cudaStreamNonBlocking));
    cudaEvent_t s1_done = nullptr;
    cudaEvent_t s0_go = nullptr;
    LS_CHECK(cudaEventCreateWithFlags(&s1_done, cudaEventDisableTiming));
    LS_CHECK(cudaEventCreateWithFlags(&s0_go, cudaEventDisableTiming));
    for (int mode = 0; mode < 2; ++mode) {
      const bool p2p = mode == 1 && can != 0;
      if (mode == 1 && can == 0) break;  // P2P impossible: "on" would repeat "off"
      if (p2p) {
        LS_CHECK(cudaSetDevice(a));
        LS_CHECK(cudaDeviceEnablePeerAccess(b, 0));
        LS_CHECK(cudaSetDevice(b));
        LS_CHECK(cudaDeviceEnablePeerAccess(a, 0));
        LS_CHECK(cudaSetDevice(a));
      }
      for (double size : sizes) {
        const size_t n = static_cast<size_t>(size);
        Stats uni = time_on(s0, plan.warmup, plan.repeats,
                            [&] { LS_CHECK(cudaMemcpyPeerAsync(buf_b, b, buf_a, a, n, s0)); });
        Record r = make_record("p2p_uni", "cudaMemcpyPeerAsync", a, b, 2, size, size, uni);
        r.p2p_enabled = p2p;
        out.records.push_back(r);
        // Both ways: b -> a on s1, joined into s0 so s0's events time both.
        Stats bidi = time_on(s0, plan.warmup, plan.repeats, [&] {
          LS_CHECK(cudaEventRecord(s0_go, s0));
          LS_CHECK(cudaStreamWaitEvent(s1, s0_go, 0));
          LS_CHECK(cudaMemcpyPeerAsync(buf_b, b, buf_a, a, n, s0));
          LS_CHECK(cudaMemcpyPeerAsync(back_a, a, buf_b, b, n, s1));
          LS_CHECK(cudaEventRecord(s1_done, s1));
          LS_CHECK(cudaStreamWaitEvent(s0, s1_done, 0));
        });
        Record rb = make_record("p2p_bidi", "cudaMemcpyPeerAsync", a, b, 2, size, 2 * size, bidi);
        rb.p2p_enabled = p2p;
        out.records.push_back(rb);
      }
      if (plan.latency) {
        Stats lat = time_on(s0, plan.warmup, plan.repeats * 10,
                            [&] { LS_CHECK(cudaMemcpyPeerAsync(buf_b, b, buf_a, a, 1, s0)); });
        Record r = make_record("p2p_latency", "gpu_timer", a, b, 2, 1, 1, lat);
        r.p2p_enabled = p2p;
        out.records.push_back(r);
      }
      if (p2p) {
        LS_CHECK(cudaDeviceDisablePeerAccess(b));
        LS_CHECK(cudaSetDevice(b));
        LS_CHECK(cudaDeviceDisablePeerAccess(a));
        LS_CHECK(cudaSetDevice(a));
      }
    }
    LS_CHECK(cudaEventDestroy(s1_done));
    LS_CHECK(cudaEventDestroy(s0_go));
    LS_CHECK(cudaStreamDestroy(s0));
    LS_CHECK(cudaFree(buf_a));
    LS_CHECK(cudaFree(back_a));
    LS_CHECK(cudaSetDevice(b));
    LS_CHECK(cudaStreamDestroy(s1));
    LS_CHECK(cudaFree(buf_b));
  }

  // Every GPU copies `size` bytes from pinned host memory at once; each GPU's record is timed
  // on its own stream from a common start (all streams wait on one event).
  void concurrent_h2d(const ProbePlan& plan, double size, ProbeResult& out) {
    const size_t n = static_cast<size_t>(size);
    std::vector<void*> host(count_), dev(count_);
    std::vector<cudaStream_t> streams(count_);
    for (int d = 0; d < count_; ++d) {
      LS_CHECK(cudaSetDevice(d));
      LS_CHECK(cudaMallocHost(&host[d], n));
      LS_CHECK(cudaMalloc(&dev[d], n));
      LS_CHECK(cudaStreamCreateWithFlags(&streams[d], cudaStreamNonBlocking));
    }
    std::vector<cudaEvent_t> start(count_), stop(count_);
    std::vector<std::vector<double>> times(count_);
    for (int it = 0; it < plan.warmup + plan.repeats; ++it) {
      for (int d = 0; d < count_; ++d) {
        LS_CHECK(cudaSetDevice(d));
        if (it == 0) {
          LS_CHECK(cudaEventCreate(&start[d]));
          LS_CHECK(cudaEventCreate(&stop[d]));
        }
        LS_CHECK(cudaEventRecord(start[d], streams[d]));
        LS_CHECK(cudaMemcpyAsync(dev[d], host[d], n, cudaMemcpyHostToDevice, streams[d]));
        LS_CHECK(cudaEventRecord(stop[d], streams[d]));
      }
      for (int d = 0; d < count_; ++d) {
        LS_CHECK(cudaEventSynchronize(stop[d]));
        float ms = 0;
        LS_CHECK(cudaEventElapsedTime(&ms, start[d], stop[d]));
        if (it >= plan.warmup) times[d].push_back(double(ms) * 1e-3);
      }
    }
    for (int d = 0; d < count_; ++d) {
      std::sort(times[d].begin(), times[d].end());
      Stats s;
      s.repeats = plan.repeats;
      s.median_s = times[d][times[d].size() / 2];
      s.spread_s = times[d].back() - times[d].front();
      out.records.push_back(make_record("h2d", "concurrent", -1, d, count_, size, size, s));
      LS_CHECK(cudaSetDevice(d));
      LS_CHECK(cudaEventDestroy(start[d]));
      LS_CHECK(cudaEventDestroy(stop[d]));
      LS_CHECK(cudaStreamDestroy(streams[d]));
      LS_CHECK(cudaFreeHost(host[d]));
      LS_CHECK(cudaFree(dev[d]));
    }
  }

  void gemm(int d, const ProbePlan& plan, ProbeResult& out) {
    const int n = plan.sizes_bytes.size() > 3 ? 4096 : 2048;
    const size_t bytes = size_t(n) * size_t(n) * sizeof(float);
    LS_CHECK(cudaSetDevice(d));
    cudaStream_t stream = nullptr;
    LS_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    float* a = nullptr;
    float* b = nullptr;
    float* c = nullptr;
    LS_CHECK(cudaMalloc(reinterpret_cast<void**>(&a), bytes));
    LS_CHECK(cudaMalloc(reinterpret_cast<void**>(&b), bytes));
    LS_CHECK(cudaMalloc(reinterpret_cast<void**>(&c), bytes));
    LS_CHECK(cudaMemsetAsync(a, 0, bytes, stream));
    LS_CHECK(cudaMemsetAsync(b, 0, bytes, stream));
    cublasHandle_t handle = nullptr;
    LS_CHECK(cublasCreate(&handle));
    LS_CHECK(cublasSetStream(handle, stream));
    const float one = 1.0f;
    const float zero = 0.0f;
    Stats s = time_on(stream, plan.warmup, plan.repeats, [&] {
      LS_CHECK(
          cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, c, n));
    });
    Record r = make_record("gemm", "cublasSgemm fp32 n=" + std::to_string(n), d, d, 1, 0, 0, s);
    r.flops_per_s = s.median_s > 0 ? 2.0 * double(n) * double(n) * double(n) / s.median_s : 0;
    out.records.push_back(r);
    LS_CHECK(cublasDestroy(handle));
    LS_CHECK(cudaFree(a));
    LS_CHECK(cudaFree(b));
    LS_CHECK(cudaFree(c));
    LS_CHECK(cudaStreamDestroy(stream));
  }

#if defined(LINKSIM_HAVE_NCCL)
  // One process drives every GPU (like nccl-tests -g N). Time per op is the slowest GPU's
  // median; sizes are nccl-tests' "size" column (total buffer for all_gather).
  void collectives(const ProbePlan& plan, const std::vector<double>& sizes, ProbeResult& out) {
    std::vector<ncclComm_t> comms(count_);
    std::vector<int> devs(count_);
    for (int d = 0; d < count_; ++d)
      devs[d] = d;
    LS_CHECK(ncclCommInitAll(comms.data(), count_, devs.data()));
    std::vector<cudaStream_t> streams(count_);
    std::vector<float*> send(count_), recv(count_);
    const size_t max_bytes = static_cast<size_t>(sizes.back());
    for (int d = 0; d < count_; ++d) {
      LS_CHECK(cudaSetDevice(d));
      LS_CHECK(cudaStreamCreateWithFlags(&streams[d], cudaStreamNonBlocking));
      LS_CHECK(cudaMalloc(reinterpret_cast<void**>(&send[d]), max_bytes));
      LS_CHECK(cudaMalloc(reinterpret_cast<void**>(&recv[d]), max_bytes));
    }
    const double nd = count_;
    for (int op = 0; op < 2; ++op) {
      for (double size : sizes) {
        const size_t count = static_cast<size_t>(size) / sizeof(float);
        const size_t per_rank = (count / count_) & ~size_t(3);  // 16-byte parts, as nccl-tests
        if ((op == 0 && count == 0) || (op == 1 && per_rank == 0)) continue;
        auto launch = [&] {
          LS_CHECK(ncclGroupStart());
          for (int d = 0; d < count_; ++d) {
            if (op == 0) {
              LS_CHECK(
                  ncclAllReduce(send[d], recv[d], count, ncclFloat, ncclSum, comms[d], streams[d]));
            } else {
              LS_CHECK(ncclAllGather(send[d], recv[d], per_rank, ncclFloat, comms[d], streams[d]));
            }
          }
          LS_CHECK(ncclGroupEnd());
        };
        // Time on stream 0 after joining the others into it.
        std::vector<cudaEvent_t> done(count_);
        for (int d = 0; d < count_; ++d) {
          LS_CHECK(cudaSetDevice(d));
          LS_CHECK(cudaEventCreateWithFlags(&done[d], cudaEventDisableTiming));
        }
        LS_CHECK(cudaSetDevice(0));
        Stats s = time_on(streams[0], plan.warmup, plan.repeats, [&] {
          launch();
          for (int d = 1; d < count_; ++d) {
            LS_CHECK(cudaEventRecord(done[d], streams[d]));
            LS_CHECK(cudaStreamWaitEvent(streams[0], done[d], 0));
          }
        });
        for (int d = 0; d < count_; ++d)
          LS_CHECK(cudaEventDestroy(done[d]));
        const double bytes = op == 0 ? double(count) * 4 : double(per_rank) * 4 * nd;
        Record r = make_record(op == 0 ? "nccl:all_reduce_perf" : "nccl:all_gather_perf",
                               "out_of_place", -1, -1, count_, bytes, bytes, s);
        r.bus_bandwidth_Bps = r.bandwidth_Bps * (op == 0 ? 2 * (nd - 1) / nd : (nd - 1) / nd);
        // One thread launches every GPU's part, and each timed operation is waited for: the
        // launches do not overlap the previous operation (nccl-tests -n 1).
        r.gpus_per_thread = count_;
        r.iterations = 1;
        out.records.push_back(r);
      }
    }
    for (int d = 0; d < count_; ++d) {
      LS_CHECK(cudaSetDevice(d));
      LS_CHECK(cudaFree(send[d]));
      LS_CHECK(cudaFree(recv[d]));
      LS_CHECK(cudaStreamDestroy(streams[d]));
      LS_CHECK(ncclCommDestroy(comms[d]));
    }
  }
#endif

  int count_ = 0;
};

}  // namespace

std::unique_ptr<Probe> make_cuda_probe(std::string& why_not) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    why_not = std::string("no CUDA device found: ") + cudaGetErrorString(e);
    return nullptr;
  }
  if (count == 0) {
    why_not = "no CUDA device found: the runtime reports 0 devices";
    return nullptr;
  }
  return std::make_unique<CudaProbe>(count);
}

}  // namespace linksim::calibrate

// The module's one entry point, found with dlsym by calibrate/cuda_module.cpp. The caller owns
// the probe; both sides use the same compiler and C++ library.
extern "C" linksim::calibrate::Probe* linksim_make_cuda_probe(std::string* why_not) {
  return linksim::calibrate::make_cuda_probe(*why_not).release();
}
