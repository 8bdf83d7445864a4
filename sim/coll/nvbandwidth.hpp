#pragma once
// NVIDIA's nvbandwidth (v0.8) on a simulated machine: each testcase's copies, timed the way the
// tool times them, and turned into its figures with its own arithmetic.
//
// How the tool measures (memcpy.cpp, MemcpyOperation::doMemcpyCore): every copy of a testcase
// runs on its own stream; all streams start together; each stream performs `loop_count` copies
// of its buffer; a stream's bandwidth is
//   bytes x loop_count x 10^6 / (whole microseconds of its CUDA-event time, a float in ms)
// in integer B/s, and the testcase reports the first stream's figure, each stream's, or
// (all-to-one, one-to-all) all bytes over the time until the last stream ends. Interfering
// streams (bidirectional and all-to-host testcases) copy twice the measured buffer so that they
// outlast the measured one. The median (or mean) over `samples` samples is reported, x 1e-9 in
// GB/s. A simulation is deterministic: every sample is the same.
//
// The model of a copy is sim/coll/copy_bench.hpp's: the links' payload rates
// (sim/topo/link_payload.hpp), the engine's max-min sharing for copies that run at once, and
// kCopyLaunch_s to start each copy (each cuMemcpyAsync; one kernel launch for an SM copy, which
// loops inside the kernel). Host buffers sit in the memory of the GPU's own socket (the tool
// pins its thread to the GPU's NUMA node). A device-local copy reads and writes the GPU's memory
// at kDramCopyEfficiency of its peak; the tool counts the bytes once, so it sees half that rate.
//
// Where SM copies differ from CE copies on real hardware, and what linksim assumes:
// - SM copies use the GPU's load/store path, not a copy engine, and can reach a different rate
//   over the same link: over PCIe, SM reads of host memory can be much slower (nvbandwidth issue
//   #24, H100: host_to_device_memcpy_sm 35.2 GB/s, device_to_host_memcpy_sm 52.8). linksim
//   gives both the same payload rate: the links, not the initiator, set it.
// - A copy kernel moves a whole number of 16-byte elements per thread: from 64 MiB on, the copy
//   is truncated to a multiple of SM count x 512 threads x 16 B (copyKernel() in kernels.cu);
//   linksim truncates the same way, with the GPU model's SM count (none when it is unknown).
// - The bidirectional host SM testcases run one kernel whose odd and even warps copy in
//   opposite directions, half the buffer each way, and report half of size / kernel time.
// - Read and write testcases move the same bytes over the same links and differ only in which
//   GPU issues the copy (whose SM count applies, for SM copies); linksim models no other
//   difference between reads and writes.
// Not simulated: the pointer-chase latency testcases (host_device_latency_sm,
// device_to_device_latency_sm): linksim has no model of a single load's round trip. They are
// reported as waived, as the tool reports a testcase the system cannot run.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/coll/nvbandwidth_testcases.hpp"
#include "sim/topo/topology.hpp"

namespace linksim::coll {

// nvbandwidth's defaults (common.h): a 512 MiB buffer, 16 copies per sample, 3 samples.
inline constexpr std::uint64_t kNvbDefaultBufferBytes = 512ull * 1024 * 1024;
inline constexpr std::uint64_t kNvbDefaultLoopCount = 16;
inline constexpr unsigned kNvbDefaultSamples = 3;
// Copy kernels: 512 threads per block, one block per SM; below 64 MiB a simple kernel copies
// the whole buffer (no truncation).
inline constexpr std::uint64_t kNvbThreadsPerBlock = 512;
inline constexpr std::uint64_t kNvbSmallBufferBytes = 64ull * 1024 * 1024;

struct NvbOptions {
  std::uint64_t buffer_bytes = kNvbDefaultBufferBytes;
  std::uint64_t loop_count = kNvbDefaultLoopCount;
  unsigned samples = kNvbDefaultSamples;  // REQUIRES: >= 1
  bool use_mean = false;                  // -m: mean instead of median
};

// One stream's figure in one sample, as the tool's verbose output lists it.
struct NvbStreamSample {
  int src_gpu = -1;  // -1: host memory
  int dst_gpu = -1;
  double bandwidth_GBps = 0;
};

// One set of copies run together (one doMemcpy of the tool).
struct NvbMeasurement {
  std::vector<NvbStreamSample> streams;
  std::optional<double> total_GBps;  // all-to-one and one-to-all: all bytes over the last end
};

// One printed matrix. Cells are GB/s as the tool computes them; nullopt prints "N/A".
struct NvbMatrix {
  std::string key;          // the SUM line's name: the testcase, or "<testcase>_read1" ...
  std::string description;  // "memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)"
  int rows = 0;
  int columns = 0;
  std::vector<std::optional<double>> cells_GBps;  // row-major
  const std::optional<double>& at(int row, int column) const {
    return cells_GBps.at(static_cast<std::size_t>(row * columns + column));
  }
};

struct NvbResult {
  bool waived = false;  // the machine cannot run it (no peer pairs), or linksim does not model it
  std::vector<NvbMeasurement> measurements;  // in the order the tool runs them
  std::vector<NvbMatrix> matrices;
};

NvbResult run_nvbandwidth(const topo::Topology& topo, const NvbTestcase& testcase,
                          const NvbOptions& options = {});

// The bytes one copy of `buffer_bytes` moves on `initiator` in a context of a GPU with
// `sm_count` SMs (0: unknown, no truncation): the whole buffer on a copy engine, whole 16-byte
// elements per thread on SMs.
std::uint64_t nvbandwidth_copy_bytes(std::uint64_t buffer_bytes, CopyInitiator initiator,
                                     int sm_count);

// A stream's bandwidth in B/s from its bytes, copies and simulated time, in the tool's integer
// arithmetic: the event time as a float in milliseconds, truncated to whole microseconds.
std::uint64_t nvbandwidth_stream_Bps(std::uint64_t copy_bytes, std::uint64_t loop_count,
                                     double elapsed_s);

}  // namespace linksim::coll
