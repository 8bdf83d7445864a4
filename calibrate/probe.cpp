#include "calibrate/probe.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace linksim::calibrate {

ProbePlan default_plan(bool quick) {
  ProbePlan plan;
  const double first = quick ? 64.0 * 1024 : 4.0 * 1024;
  const double last = quick ? 64.0 * 1024 * 1024 : 1024.0 * 1024 * 1024;
  const double factor = quick ? 16 : 4;
  for (double s = first; s <= last; s *= factor)
    plan.sizes_bytes.push_back(s);
  plan.warmup = quick ? 1 : 2;
  plan.repeats = quick ? 3 : 7;
  return plan;
}

RecordedProbe::RecordedProbe(std::vector<DeviceInfo> devices, std::vector<Record> records)
    : devices_(std::move(devices)), records_(std::move(records)) {}

ProbeResult RecordedProbe::run(const ProbePlan& plan) {
  ProbeResult result;
  result.devices = devices_;
  for (const auto& r : records_) {
    const bool sized = r.size_bytes > 1;
    if (!sized || std::find(plan.sizes_bytes.begin(), plan.sizes_bytes.end(), r.size_bytes) !=
                      plan.sizes_bytes.end()) {
      result.records.push_back(r);
    }
  }
  if (devices_.size() < 2) {
    result.notes.push_back(fmt::format("{} GPU: no peer links to measure", devices_.size()));
  }
  return result;
}

}  // namespace linksim::calibrate
