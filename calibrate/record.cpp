#include "calibrate/record.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>

namespace linksim::calibrate {

bool is_nccl(const Record& r) {
  return r.kind.rfind(kind::nccl_prefix, 0) == 0;
}

std::string describe_endpoints(const Record& r) {
  auto end = [](int gpu) { return gpu < 0 ? std::string("host") : fmt::format("gpu{}", gpu); };
  std::string out = r.kind;
  if (is_nccl(r)) {
    out += fmt::format(" {} GPUs", r.gpu_count);
  } else if (r.kind == kind::h2d) {
    out += " " + end(r.dst_gpu);
  } else if (r.kind == kind::d2h || r.kind == kind::d2d || r.kind == kind::launch_latency ||
             r.kind == kind::gemm) {
    out += " " + end(r.src_gpu);
  } else {
    out += fmt::format(" {}->{}", end(r.src_gpu), end(r.dst_gpu));
  }
  if (r.p2p_enabled) out += *r.p2p_enabled ? " p2p=on" : " p2p=off";
  return out;
}

std::string source_of(const Record& r) {
  return fmt::format("{}:{}", r.source_file, r.source_line);
}

void sort_records(std::vector<Record>& records) {
  std::stable_sort(records.begin(), records.end(), [](const Record& a, const Record& b) {
    return std::tie(a.source_file, a.source_line, a.kind, a.src_gpu, a.dst_gpu, a.size_bytes,
                    a.variant) < std::tie(b.source_file, b.source_line, b.kind, b.src_gpu,
                                          b.dst_gpu, b.size_bytes, b.variant);
  });
}

}  // namespace linksim::calibrate
