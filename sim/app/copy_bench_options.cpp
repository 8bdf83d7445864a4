#include "sim/app/copy_bench_options.hpp"

#include <fmt/format.h>

#include <charconv>

#include "sim/core/error.hpp"

namespace linksim::app {
namespace {

// A whole number from `min` to 4e9, as the samples read their counts (atoi-like, but strict).
double parse_count(const std::string& text, const std::string& what, long long min = 1) {
  long long v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < min || v > 4'000'000'000LL) {
    throw InputError("", "",
                     fmt::format("{}: expected a whole number from {} to 4000000000, got \"{}\"",
                                 what, min, text));
  }
  return static_cast<double>(v);
}

void read_range(const BandwidthTestArguments& a, report::BandwidthTestOptions& o) {
  if (a.start.empty() || a.end.empty() || a.increment.empty()) {
    throw InputError("", "", "range mode needs a start, an end and an increment size");
  }
  o.start_bytes = parse_count(a.start, "start");
  o.end_bytes = parse_count(a.end, "end");
  o.increment_bytes = parse_count(a.increment, "increment");
  if (o.start_bytes > o.end_bytes) {
    throw InputError("", "", "range mode: the start size is greater than the end size");
  }
  if ((o.end_bytes - o.start_bytes) / o.increment_bytes > 100000) {
    throw InputError("", "", "range mode: more than 100000 sizes; take a larger increment");
  }
}

}  // namespace

report::P2pTestOptions p2p_test_options(const P2pTestArguments& a) {
  report::P2pTestOptions o;
  o.p2p_read = a.p2p_read;
  o.sm_copy = a.sm_copy;
  if (!a.num_elems.empty()) o.copy_bytes = 4 * parse_count(a.num_elems, "numElems");
  return o;
}

void check_p2p_test_machine(const topo::Topology& machine) {
  const std::size_t gpus = machine.count(topo::NodeKind::gpu);
  if (gpus > kMaxP2pTestGpus) {
    throw InputError(machine.file, "",
                     fmt::format("{} has {} GPUs; p2p prints every pair of them and simulates "
                                 "machines of at most {} GPUs (topo show summarizes larger ones)",
                                 machine.name, gpus, kMaxP2pTestGpus));
  }
}

report::BandwidthTestOptions bandwidth_test_options(const BandwidthTestArguments& a,
                                                    const topo::Topology& machine) {
  report::BandwidthTestOptions o;
  if (a.memory == "pageable") {
    throw InputError("", "", "pageable memory transfers are not modelled; use pinned memory");
  }
  if (a.memory != "pinned") {
    throw InputError("", "", fmt::format("memory mode \"{}\": expected pinned", a.memory));
  }
  o.csv = a.csv;
  o.write_combined = a.write_combined;
  o.mode = a.mode == "range"   ? report::BandwidthTestMode::range
           : a.mode == "shmoo" ? report::BandwidthTestMode::shmoo
                               : report::BandwidthTestMode::quick;
  const bool any = a.htod || a.dtoh || a.dtod;
  o.htod = !any || a.htod;
  o.dtoh = !any || a.dtoh;
  o.dtod = !any || a.dtod;
  const int gpus = static_cast<int>(machine.count(topo::NodeKind::gpu));
  if (a.device != "all") {
    const double d = parse_count(a.device, "device", 0);
    if (d >= gpus) {
      throw InputError(machine.file, "",
                       fmt::format("device {} does not exist: the machine has GPUs 0 to {}",
                                   a.device, gpus - 1));
    }
    o.device = static_cast<int>(d);
  } else {
    o.device = std::nullopt;  // every device in turn, and their cumulative figure
  }
  if (o.mode == report::BandwidthTestMode::range) read_range(a, o);
  return o;
}

}  // namespace linksim::app
