#pragma once
// Units at the edges. Inside linksim everything is SI: seconds, bytes, bytes per second.
// Strings such as "25 GB/s", "200 Gb/s", "1.2 us" or "80 GiB" are parsed here, and printed
// figures are formatted here. Decimal prefixes are powers of 1000 (GB/s = 1e9 B/s, as NCCL and
// nccl-tests use); binary prefixes (KiB, MiB, GiB, TiB) are powers of 1024.

#include <optional>
#include <string>
#include <string_view>

namespace linksim::units {

// Each parser returns nullopt when the text is not a number followed by a known unit.
std::optional<double> parse_bandwidth_Bps(std::string_view text);
std::optional<double> parse_time_s(std::string_view text);
std::optional<double> parse_bytes(std::string_view text);
// Power in watts ("700 W"), price in USD ("32.77 USD") are not needed yet.

// Human-readable forms with 3-4 significant digits, e.g. "450 GB/s", "1.2 us", "80 GiB".
std::string format_bandwidth(double bandwidth_Bps);
std::string format_time(double time_s);
std::string format_bytes(double bytes);
std::string format_bytes_binary(double bytes);

// Shortest decimal representation of a double that reads back to the same value: used in
// JSON and CSV output so results are exact and byte-identical across runs.
std::string exact(double value);

}  // namespace linksim::units
