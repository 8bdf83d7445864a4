#include "sim/report/nvbandwidth_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <limits>

#include "sim/report/nvbandwidth_json.hpp"

namespace linksim::report {
namespace {

constexpr const char* kGitVersion = "unknown";
constexpr int kSimulatedCudaVersion = 0;
constexpr const char* kSimulatedDriverVersion = "simulated";
// nvbandwidth.cpp main(): printed when -b is under the default 512 MiB (its text says 64MB).
constexpr const char* kSmallBufferWarning =
    "NOTE: You have chosen a buffer size that is smaller than the default buffer size. It is "
    "suggested to use the default buffer size (64MB) to achieve maximal peak bandwidth.";

std::string version_info() {
  return fmt::format("nvbandwidth Version: {}\nBuilt from Git version: {}\n\n", kNvbandwidthVersion,
                     kGitVersion);
}

// getDeviceDisplayInfo(): "<name> (<domain %08x>:<bus %02x>:<device %02x>)".
std::string device_display(const topo::Topology& topo, topo::NodeId gpu) {
  return fmt::format("{} ({:08x}:{:02x}:{:02x})", topo.node(gpu).model, 0, topo.node(gpu).ordinal,
                     0);
}

// The sum, extremes and mean of non-zero cells, as operator<< and addTestcaseResults() compute
// them (N/A counts as 0; the maximum starts at the smallest positive double).
struct MatrixStats {
  double sum = 0;
  double min = std::numeric_limits<double>::max();
  double max = std::numeric_limits<double>::min();
  int count = 0;
};
MatrixStats matrix_stats(const coll::NvbMatrix& m) {
  MatrixStats s;
  for (const auto& cell : m.cells_GBps) {
    const double v = cell.value_or(0.0);
    s.sum += v;
    s.max = std::max(s.max, v);
    s.min = std::min(s.min, v);
    if (v > 0) ++s.count;
  }
  return s;
}

// std::fixed with std::setprecision(2), as the tool's stream is set when it prints.
std::string fixed2(double v) {
  return fmt::format("{:.2f}", v);
}

// What a default std::stringstream writes for a double (%g, 6 significant digits).
std::string stream_text(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", v);
  return buffer;
}

std::string buffer_name(int gpu) {
  return gpu < 0 ? "Host" : fmt::format("Device {}", gpu);
}

// memcpy.cpp's VERBOSE lines: each stream's figure in each sample, then the total.
std::string verbose_samples(const coll::NvbResult& r, unsigned samples) {
  std::string out;
  for (const auto& m : r.measurements) {
    for (unsigned n = 0; n < samples; ++n) {
      for (const auto& s : m.streams) {
        out += fmt::format("\tSample {}: {} -> {}: {} GB/s\n", n, buffer_name(s.src_gpu),
                           buffer_name(s.dst_gpu), fixed2(s.bandwidth_GBps));
      }
      if (m.total_GBps)
        out += fmt::format("\tSample {}: Total Bandwidth : {} GB/s\n", n, fixed2(*m.total_GBps));
    }
  }
  return out;
}

nlohmann::json json_testcase(const coll::NvbTestcase& t, const coll::NvbResult& r, bool verbose) {
  nlohmann::json tc;
  tc["name"] = std::string(t.key);
  if (r.waived) {
    tc["status"] = "Waived";
    return tc;
  }
  tc["status"] = "Running";
  // addTestcaseResults(), once per matrix on the same testcase: rows accumulate, the rest is the
  // last matrix's.
  tc["bandwidth_matrix"] = nlohmann::json::array();
  for (const auto& m : r.matrices) {
    for (int row = 0; row < m.rows; ++row) {
      nlohmann::json cells = nlohmann::json::array();
      for (int col = 0; col < m.columns; ++col) {
        const auto& v = m.at(row, col);
        cells.push_back(v ? stream_text(*v) : std::string("N/A"));
      }
      tc["bandwidth_matrix"].push_back(std::move(cells));
    }
    const MatrixStats s = matrix_stats(m);
    tc["sum"] = s.sum;
    tc["bandwidth_description"] = m.description;
    tc["status"] = "Passed";
    if (verbose) {
      tc["min"] = s.min;
      tc["max"] = s.max;
      tc["average"] = s.sum / s.count;
    }
  }
  return tc;
}

std::string format_json(const topo::Topology& topo, const std::vector<std::size_t>& testcases,
                        const NvbandwidthPrintOptions& options) {
  nlohmann::json nvb;
  nvb["version"] = kNvbandwidthVersion;
  nvb["git_version"] = kGitVersion;
  if (options.run.buffer_bytes < coll::kNvbDefaultBufferBytes) nvb["warning"] = kSmallBufferWarning;
  nvb["CUDA Runtime Version"] = kSimulatedCudaVersion;
  nvb["Driver Version"] = kSimulatedDriverVersion;
  nvb["GPU Device list"] = nlohmann::json::array();
  for (auto g : topo.nodes_of(topo::NodeKind::gpu)) {
    nvb["GPU Device list"].push_back(
        fmt::format("{}: {}: ({})", topo.node(g).ordinal, device_display(topo, g), topo.name));
  }
  const auto all = coll::nvbandwidth_testcases();
  for (std::size_t i : testcases) {
    const auto r = coll::run_nvbandwidth(topo, all[i], options.run);
    nvb["testcases"].push_back(json_testcase(all[i], r, options.verbose));
  }
  nlohmann::json root;
  root["nvbandwidth"] = std::move(nvb);
  return jsoncpp_styled(root);
}

}  // namespace

std::string format_nvbandwidth_matrix(const coll::NvbMatrix& m, bool perf_formatter, bool verbose) {
  std::string out = "  ";
  for (int col = 0; col < m.columns; ++col)
    out += fmt::format("{:>10}", col);
  out += "\n";
  for (int row = 0; row < m.rows; ++row) {
    out += fmt::format("{:>2}", row);
    for (int col = 0; col < m.columns; ++col) {
      const auto& v = m.at(row, col);
      out += fmt::format("{:>10}", v ? fixed2(*v) : std::string("N/A"));
    }
    out += "\n";
  }
  out += "\n";
  const MatrixStats s = matrix_stats(m);
  out += perf_formatter ? fmt::format("&&&& PERF {} {} +GB/s\n", m.key, fixed2(s.sum))
                        : fmt::format("SUM {} {}\n", m.key, fixed2(s.sum));
  if (verbose) {
    out += fmt::format("MIN {} {}\nMAX {} {}\nAVG {} {}\n", m.key, fixed2(s.min), m.key,
                       fixed2(s.max), m.key, fixed2(s.sum / s.count));
  }
  return out;
}

std::string format_nvbandwidth_list(bool json) {
  if (json) return "";
  std::string out = version_info();
  out += "Index, Name:\n\tDescription\n=======================\n";
  const auto all = coll::nvbandwidth_testcases();
  for (std::size_t i = 0; i < all.size(); ++i)
    out += fmt::format("{}, {}:\n{}\n\n", i, all[i].key, all[i].description);
  return out;
}

std::string format_nvbandwidth(const topo::Topology& topo,
                               const std::vector<std::size_t>& testcases,
                               const NvbandwidthPrintOptions& options) {
  if (options.json) return format_json(topo, testcases, options);
  std::string out = version_info();
  if (options.run.buffer_bytes < coll::kNvbDefaultBufferBytes) {
    out += std::string(kSmallBufferWarning) + "\n";
  }
  out += fmt::format("CUDA Runtime Version: {0}\nCUDA Driver Version: {0}\nDriver Version: {1}\n\n",
                     kSimulatedCudaVersion, kSimulatedDriverVersion);
  out += topo.name + "\n";
  for (auto g : topo.nodes_of(topo::NodeKind::gpu))
    out += fmt::format("Device {}: {}\n", topo.node(g).ordinal, device_display(topo, g));
  out += "\n";
  const auto all = coll::nvbandwidth_testcases();
  for (std::size_t i : testcases) {
    const auto r = coll::run_nvbandwidth(topo, all[i], options.run);
    if (r.waived) {
      out += "Waived: \n";
      continue;
    }
    out += fmt::format("Running {}.\n", all[i].key);
    if (options.verbose) out += verbose_samples(r, options.run.samples);
    for (const auto& m : r.matrices) {
      out += m.description + "\n" +
             format_nvbandwidth_matrix(m, options.perf_formatter, options.verbose) + "\n";
    }
  }
  out +=
      "NOTE: The reported results may not reflect the full capabilities of the platform.\n"
      "Performance can vary with software drivers, hardware clocks, and system topology.\n\n";
  return out;
}

}  // namespace linksim::report
