#include "calibrate/series.hpp"

#include <fmt/format.h>

#include <map>

namespace linksim::calibrate {

namespace {
// nvbandwidth's unidirectional copy testcases are single copies, like bandwidthTest's pinned.
bool starts_with_memcpy(const std::string& variant) {
  return variant.rfind("host_to_device_memcpy", 0) == 0 ||
         variant.rfind("device_to_host_memcpy", 0) == 0;
}
}  // namespace

bool is_link_fittable(const Record& r) {
  if (r.size_bytes <= 0 || r.time_s <= 0) return false;
  if (r.kind == kind::h2d || r.kind == kind::d2h)
    return r.variant == "pinned" || r.variant.empty() || starts_with_memcpy(r.variant);
  if (r.kind == kind::p2p_uni || r.kind == kind::p2p_bidi) return r.src_gpu != r.dst_gpu;
  if (r.kind == kind::p2p_latency) return r.variant == "gpu_timer" && r.src_gpu != r.dst_gpu;
  return false;
}

SeriesKey series_key(const Record& r) {
  SeriesKey k;
  k.kind = r.kind == kind::p2p_latency ? std::string(kind::p2p_uni) : r.kind;
  k.src_gpu = r.src_gpu;
  k.dst_gpu = r.dst_gpu;
  k.p2p_enabled = r.p2p_enabled;
  return k;
}

std::string describe(const SeriesKey& key) {
  Record r;
  r.kind = key.kind;
  r.src_gpu = key.src_gpu;
  r.dst_gpu = key.dst_gpu;
  r.p2p_enabled = key.p2p_enabled;
  return describe_endpoints(r);
}

std::vector<Series> build_series(const std::vector<Record>& records, const FitOptions& options) {
  std::map<SeriesKey, Series> by_key;
  for (const auto& r : records) {
    if (!is_link_fittable(r)) continue;
    const SeriesKey k = series_key(r);
    auto& s = by_key[k];
    s.key = k;
    s.records.push_back(r);
  }
  std::vector<Series> out;
  for (auto& [k, s] : by_key) {
    std::vector<Sample> samples;
    for (const auto& r : s.records)
      samples.push_back({r.size_bytes, r.time_s});
    s.fit = fit_alpha_beta(samples, options);
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace linksim::calibrate
