#include "sim/report/nccl_tests_csv.hpp"

#include <fmt/format.h>

#include "sim/core/units.hpp"

namespace linksim::report {

std::string nccl_tests_csv(const std::vector<coll::SweepRow>& rows) {
  std::string out = "size_bytes,count,type,redop,root,placement,time_us,algbw_GBps,busbw_GBps\n";
  for (const auto& r : rows) {
    auto line = [&](const char* placement, const coll::Outcome& o) {
      out += fmt::format("{},{},{},{},{},{},{},{},{}\n", units::exact(r.size_bytes), r.count,
                         r.type, r.redop, r.root, placement, units::exact(o.time_s * 1e6),
                         units::exact(o.algbw_Bps / 1e9), units::exact(o.busbw_Bps / 1e9));
    };
    line("out-of-place", r.outcome);
    line("in-place", r.in_place_outcome());
  }
  return out;
}

}  // namespace linksim::report
