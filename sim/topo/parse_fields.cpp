// Field readers the machine loader's sections share: bandwidths and latencies with their
// accepted bounds (loader.hpp), so an absurd figure is rejected wherever it appears.
#include <fmt/format.h>

#include "sim/topo/loader_sections.hpp"

namespace linksim::topo {

double bandwidth_field(const JsonView& v) {
  const double bw = v.as_bandwidth_Bps();
  if (!(bw > 0)) v.fail(fmt::format("bandwidth must be positive, got \"{}\"", v.as_string()));
  if (bw < kMinBandwidth_Bps || bw > kMaxBandwidth_Bps) {
    v.fail(
        fmt::format("bandwidth \"{}\" is absurd; expected between 1 MB/s and 10 TB/s per "
                    "direction",
                    v.as_string()));
  }
  return bw;
}

double latency_field(const JsonView& v) {
  const double lat = v.as_time_s();
  if (!(lat > 0)) v.fail(fmt::format("latency must be positive, got \"{}\"", v.as_string()));
  if (lat > kMaxLatency_s) {
    v.fail(fmt::format("latency \"{}\" is absurd; expected at most 1 ms per hop", v.as_string()));
  }
  return lat;
}

}  // namespace linksim::topo
