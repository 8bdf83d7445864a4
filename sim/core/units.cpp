#include "sim/core/units.hpp"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <utility>

namespace linksim::units {
namespace {

struct Suffix {
  std::string_view name;
  double factor;
};

// Splits "25.5 GB/s" into 25.5 and "GB/s". Whitespace between number and unit is optional.
std::optional<std::pair<double, std::string_view>> split_number(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
    text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t'))
    text.remove_suffix(1);
  double value = 0;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc() || ptr == begin) return std::nullopt;
  std::string_view rest(ptr, static_cast<std::size_t>(end - ptr));
  while (!rest.empty() && rest.front() == ' ')
    rest.remove_prefix(1);
  if (!std::isfinite(value)) return std::nullopt;
  return std::make_pair(value, rest);
}

template <std::size_t N>
std::optional<double> parse_with(std::string_view text, const std::array<Suffix, N>& table,
                                 double max_magnitude, bool* out_of_bounds) {
  if (out_of_bounds) *out_of_bounds = false;
  auto split = split_number(text);
  if (!split) return std::nullopt;
  for (const auto& s : table) {
    if (split->second != s.name) continue;
    const double v = split->first * s.factor;
    if (!(std::fabs(v) <= max_magnitude)) {  // also refuses inf
      if (out_of_bounds) *out_of_bounds = true;
      return std::nullopt;
    }
    return v;
  }
  return std::nullopt;
}

constexpr std::array<Suffix, 16> kBandwidth{{
    {"B/s", 1.0},
    {"KB/s", 1e3},
    {"MB/s", 1e6},
    {"GB/s", 1e9},
    {"TB/s", 1e12},
    {"KiB/s", 1024.0},
    {"MiB/s", 1048576.0},
    {"GiB/s", 1073741824.0},
    {"b/s", 0.125},
    {"Kb/s", 1e3 / 8},
    {"Mb/s", 1e6 / 8},
    {"Gb/s", 1e9 / 8},
    {"Tb/s", 1e12 / 8},
    {"Mbps", 1e6 / 8},
    {"Gbps", 1e9 / 8},
    {"Tbps", 1e12 / 8},
}};

constexpr std::array<Suffix, 7> kTime{{
    {"s", 1.0},
    {"ms", 1e-3},
    {"us", 1e-6},
    {"\xC2\xB5s", 1e-6},
    {"ns", 1e-9},
    {"min", 60.0},
    {"h", 3600.0},
}};

constexpr std::array<Suffix, 9> kBytes{{
    {"B", 1.0},
    {"KB", 1e3},
    {"MB", 1e6},
    {"GB", 1e9},
    {"TB", 1e12},
    {"KiB", 1024.0},
    {"MiB", 1048576.0},
    {"GiB", 1073741824.0},
    {"TiB", 1099511627776.0},
}};

// Three significant digits, trailing zeros removed: 450, 31.5, 1.23.
std::string sig3(double v) {
  std::string s = fmt::format("{:.3g}", v);
  if (s.find('e') != std::string::npos) s = fmt::format("{:.0f}", v);
  return s;
}

}  // namespace

std::optional<double> parse_bandwidth_Bps(std::string_view text, bool* out_of_bounds) {
  return parse_with(text, kBandwidth, kMaxBandwidth_Bps, out_of_bounds);
}
std::optional<double> parse_time_s(std::string_view text, bool* out_of_bounds) {
  return parse_with(text, kTime, kMaxTime_s, out_of_bounds);
}
std::optional<double> parse_bytes(std::string_view text, bool* out_of_bounds) {
  return parse_with(text, kBytes, kMaxBytes, out_of_bounds);
}

std::string format_bandwidth(double bandwidth_Bps) {
  const double a = std::fabs(bandwidth_Bps);
  if (a >= 1e12) return sig3(bandwidth_Bps / 1e12) + " TB/s";
  if (a >= 1e9) return sig3(bandwidth_Bps / 1e9) + " GB/s";
  if (a >= 1e6) return sig3(bandwidth_Bps / 1e6) + " MB/s";
  if (a >= 1e3) return sig3(bandwidth_Bps / 1e3) + " KB/s";
  return sig3(bandwidth_Bps) + " B/s";
}

std::string format_time(double time_s) {
  const double a = std::fabs(time_s);
  if (a == 0.0) return "0 s";
  if (a >= 1.0) return sig3(time_s) + " s";
  if (a >= 1e-3) return sig3(time_s * 1e3) + " ms";
  if (a >= 1e-6) return sig3(time_s * 1e6) + " us";
  return sig3(time_s * 1e9) + " ns";
}

std::string format_bytes(double bytes) {
  const double a = std::fabs(bytes);
  if (a >= 1e12) return sig3(bytes / 1e12) + " TB";
  if (a >= 1e9) return sig3(bytes / 1e9) + " GB";
  if (a >= 1e6) return sig3(bytes / 1e6) + " MB";
  if (a >= 1e3) return sig3(bytes / 1e3) + " KB";
  return sig3(bytes) + " B";
}

std::string format_bytes_binary(double bytes) {
  const double a = std::fabs(bytes);
  if (a >= 1099511627776.0) return sig3(bytes / 1099511627776.0) + " TiB";
  if (a >= 1073741824.0) return sig3(bytes / 1073741824.0) + " GiB";
  if (a >= 1048576.0) return sig3(bytes / 1048576.0) + " MiB";
  if (a >= 1024.0) return sig3(bytes / 1024.0) + " KiB";
  return sig3(bytes) + " B";
}

std::string format_power(double power_w) {
  const double a = std::fabs(power_w);
  if (a >= 1e9) return sig3(power_w / 1e9) + " GW";
  if (a >= 1e6) return sig3(power_w / 1e6) + " MW";
  if (a >= 1e3) return sig3(power_w / 1e3) + " kW";
  return sig3(power_w) + " W";
}

std::string format_energy(double energy_j) {
  constexpr double kMWh_J = 3.6e9;
  const double a = std::fabs(energy_j);
  if (a >= 1e3 * kMWh_J) return sig3(energy_j / (1e3 * kMWh_J)) + " GWh";
  if (a >= kMWh_J) return sig3(energy_j / kMWh_J) + " MWh";
  if (a >= 1e6) return sig3(energy_j / 1e6) + " MJ";
  if (a >= 1e3) return sig3(energy_j / 1e3) + " kJ";
  return sig3(energy_j) + " J";
}

std::string exact(double value) {
  std::array<char, 64> buf{};
  auto [ptr, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), value);
  if (ec != std::errc()) return "nan";
  return std::string(buf.data(), ptr);
}

}  // namespace linksim::units
