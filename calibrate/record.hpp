#pragma once
// One measurement, whatever tool produced it: a copy between host and GPU, a GPU-local copy, a
// peer copy, a latency, or one row of an nccl-tests table. Importers and probes produce these;
// the fitter and the report consume them. Everything is SI (seconds, bytes, bytes per second).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace linksim::calibrate {

// Measurement kinds. nccl-tests rows use "nccl:" + the binary name ("nccl:all_reduce_perf").
namespace kind {
inline constexpr std::string_view h2d = "h2d";                        // host memory -> GPU
inline constexpr std::string_view d2h = "d2h";                        // GPU -> host memory
inline constexpr std::string_view d2d = "d2d";                        // inside one GPU's memory
inline constexpr std::string_view p2p_uni = "p2p_uni";                // GPU a -> GPU b, one way
inline constexpr std::string_view p2p_bidi = "p2p_bidi";              // a -> b and b -> a at once
inline constexpr std::string_view p2p_latency = "p2p_latency";        // tiny copy a -> b
inline constexpr std::string_view launch_latency = "launch_latency";  // empty kernel
inline constexpr std::string_view gemm = "gemm";                      // cuBLAS GEMM FLOP rate
inline constexpr std::string_view nccl_prefix = "nccl:";
}  // namespace kind

struct Record {
  std::string kind;
  // Which flavour of the measurement: "pinned"/"pageable" (bandwidthTest), "out_of_place"/
  // "in_place" (nccl-tests), "gpu_timer"/"cpu_timer" (latency matrices), the nvbandwidth
  // testcase name. Free-form, shown in reports.
  std::string variant;
  int src_gpu = -1;   // -1: host memory, or not applicable
  int dst_gpu = -1;   // -1: host memory, or not applicable
  int gpu_count = 0;  // GPUs taking part (nccl-tests ranks; 1 for a host copy)
  // nccl-tests: GPUs one host thread drove (the header's nGpus); 0 when not known (then all).
  int gpus_per_thread = 0;
  int iterations = 0;  // nccl-tests: timed iterations (-n); 0 when not known (then 20)
  // nccl-tests: the NCCL library's NCCL_VERSION_CODE the log names (its "nccl-library=", the
  // -J file's "nccl_version"); 0 when not known (then the release the model follows).
  int nccl_version = 0;
  double size_bytes = 0;
  // Time of one operation. For tools that print only a bandwidth it is derived as
  // size / bandwidth (both directions' bytes for a bidirectional copy).
  double time_s = 0;
  // Bytes per second as the tool defines it: algbw for nccl-tests, the total of both
  // directions for p2p_bidi, read+write for bandwidthTest's D2D. 0 when not printed.
  double bandwidth_Bps = 0;
  double bus_bandwidth_Bps = 0;  // nccl-tests busbw; 0 otherwise
  // FLOP/s for kind::gemm; 0 otherwise.
  double flops_per_s = 0;
  // Whether the copy ran with peer access on (the tool asked for it and the pair allows it).
  std::optional<bool> p2p_enabled;
  // Repeat statistics where the tool gives them: time_s is then the median of `repeats` timed
  // runs, and time_spread_s is max - min. 0 when unknown.
  int repeats = 0;
  double time_spread_s = 0;
  // Where the figure came from.
  std::string source_file;
  int source_line = 0;
};

bool is_nccl(const Record& r);
// "h2d gpu0", "p2p_uni gpu0->gpu1 p2p=off", "nccl:all_reduce_perf 2 GPUs": for tables.
std::string describe_endpoints(const Record& r);
// "file:line".
std::string source_of(const Record& r);

// Stable order for output: by source file, then line, then kind, then endpoints, then size.
void sort_records(std::vector<Record>& records);

}  // namespace linksim::calibrate
