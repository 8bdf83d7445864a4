#pragma once
// Units at the edges. Inside linksim everything is SI: seconds, bytes, bytes per second.
// Strings such as "25 GB/s", "200 Gb/s", "1.2 us" or "80 GiB" are parsed here, and printed
// figures are formatted here. Decimal prefixes are powers of 1000 (GB/s = 1e9 B/s, as NCCL and
// nccl-tests use); binary prefixes (KiB, MiB, GiB, TiB) are powers of 1024.

#include <optional>
#include <string>
#include <string_view>

namespace linksim::units {

// Largest figures an input may give. Beyond them a result is nonsense or not finite (1e308 GB
// is infinite in bytes), so the parsers refuse them rather than let inf or a 300-digit time
// reach a report.
inline constexpr double kMaxBytes = 1e18;          // 1 EB
inline constexpr double kMaxTime_s = 1e7;          // about 116 days
inline constexpr double kMaxBandwidth_Bps = 1e15;  // 1 PB/s

// Each parser returns nullopt when the text is not a number followed by a known unit, or when
// the magnitude exceeds the bound above; `out_of_bounds`, when given, tells the two apart.
std::optional<double> parse_bandwidth_Bps(std::string_view text, bool* out_of_bounds = nullptr);
std::optional<double> parse_time_s(std::string_view text, bool* out_of_bounds = nullptr);
std::optional<double> parse_bytes(std::string_view text, bool* out_of_bounds = nullptr);
// Power and energy are outputs only (no parser): format_power, format_energy below.

// Human-readable forms with 3-4 significant digits, e.g. "450 GB/s", "1.2 us", "80 GiB".
std::string format_bandwidth(double bandwidth_Bps);
std::string format_time(double time_s);
std::string format_bytes(double bytes);
std::string format_bytes_binary(double bytes);
// "8.36 kW"; "512 J", "4.1 MJ" below a megawatt-hour, "1.23 MWh" (GWh) from there, as a
// run's total is quoted.
std::string format_power(double power_w);
std::string format_energy(double energy_j);

// Shortest decimal representation of a double that reads back to the same value: used in
// JSON and CSV output so results are exact and byte-identical across runs.
std::string exact(double value);

}  // namespace linksim::units
