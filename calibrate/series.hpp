#pragma once
// Grouping link measurements into series: records that time the same transfer (same kind,
// endpoints and P2P setting) at different sizes, so that one alpha/beta fit describes them.

#include <optional>
#include <string>
#include <vector>

#include "calibrate/fit_alpha_beta.hpp"
#include "calibrate/record.hpp"

namespace linksim::calibrate {

struct SeriesKey {
  std::string kind;  // kind::h2d, d2h, p2p_uni or p2p_bidi
  int src_gpu = -1;
  int dst_gpu = -1;
  std::optional<bool> p2p_enabled;
  auto operator<=>(const SeriesKey&) const = default;
};

struct Series {
  SeriesKey key;
  std::vector<Record> records;  // in input order
  AlphaBetaFit fit;
};

// Whether a record says something about links that an alpha/beta fit can use: pinned host
// copies, one-way and two-way peer copies, and GPU-timed peer latencies (which join the one-way
// series of the same pair as a 1-byte sample). Pageable copies, CPU-timed latencies, device-local
// copies and collectives are reported but not fitted.
bool is_link_fittable(const Record& r);
SeriesKey series_key(const Record& r);
// "h2d gpu0", "p2p_uni gpu0->gpu1 p2p=off".
std::string describe(const SeriesKey& key);

// Series sorted by key, each fitted (fit_alpha_beta over (size_bytes, time_s)).
std::vector<Series> build_series(const std::vector<Record>& records,
                                 const FitOptions& options = {});

}  // namespace linksim::calibrate
