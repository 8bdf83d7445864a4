#include "tests/support/nccl_tuner_conf_parser.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <string_view>

namespace linksim::testing {
namespace {

constexpr std::size_t kFgetsBuffer = 256;  // plugin.c MAX_LINE_LENGTH

constexpr std::array<std::string_view, 5> kCollectives{"broadcast", "reduce", "allgather",
                                                       "reducescatter", "allreduce"};
constexpr std::array<std::string_view, 7> kAlgorithms{
    "tree", "ring", "collnet_direct", "collnet_chain", "nvls", "nvls_tree", "pat"};
constexpr std::array<std::string_view, 3> kProtocols{"ll", "ll128", "simple"};

template <std::size_t N>
bool one_of(const std::array<std::string_view, N>& names, std::string_view s) {
  return std::find(names.begin(), names.end(), s) != names.end();
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

bool unsigned_field(std::string_view s, std::uint64_t& out) {
  if (s.empty() || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return false;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size();
}

// -1, or a number from `least` up.
bool int_field(std::string_view s, int least, int& out) {
  if (s == "-1") {
    out = -1;
    return true;
  }
  std::uint64_t v = 0;
  if (!unsigned_field(s, v) || v > 1'000'000'000) return false;
  out = static_cast<int>(v);
  return out >= least;
}

}  // namespace

TunerConfParse parse_tuner_conf(const std::string& text) {
  TunerConfParse out;
  std::size_t start = 0;
  int number = 0;
  while (start < text.size()) {
    const std::size_t newline = text.find('\n', start);
    const std::size_t end = newline == std::string::npos ? text.size() : newline;
    const std::string_view line(text.data() + start, end - start);
    start = end + 1;
    ++number;
    const auto fail = [&](const std::string& what) {
      out.errors.push_back("line " + std::to_string(number) + ": " + what);
    };
    if (line.size() + 1 > kFgetsBuffer - 1) {
      fail("longer than fgets reads into the plugin's 256-byte buffer");
      continue;
    }
    if (line.find('\r') != std::string_view::npos) {
      fail("carriage return");
      continue;
    }
    if (line.empty() || line.front() == '#') continue;
    std::vector<std::string_view> fields;
    std::size_t from = 0;
    while (true) {
      const std::size_t comma = line.find(',', from);
      fields.push_back(
          line.substr(from, comma == std::string_view::npos ? line.size() - from : comma - from));
      if (comma == std::string_view::npos) break;
      from = comma + 1;
    }
    for (auto& f : fields)
      f = trimmed(f);
    if (std::any_of(fields.begin(), fields.end(), [](std::string_view f) { return f.empty(); })) {
      fail("an empty field (strtok would drop it and shift the rest)");
      continue;
    }
    if (fields.size() < 8 || fields.size() > 10) {
      fail("expected 8 to 10 fields, got " + std::to_string(fields.size()));
      continue;
    }
    TunerConfEntry e;
    e.line = number;
    e.collective = std::string(fields[0]);
    e.algorithm = std::string(fields[3]);
    e.protocol = std::string(fields[4]);
    if (!one_of(kCollectives, fields[0])) fail("unknown collective \"" + e.collective + "\"");
    if (!one_of(kAlgorithms, fields[3])) fail("unknown algorithm \"" + e.algorithm + "\"");
    if (!one_of(kProtocols, fields[4])) fail("unknown protocol \"" + e.protocol + "\"");
    if (!unsigned_field(fields[1], e.min_bytes)) fail("min_bytes is not a number of bytes");
    if (!unsigned_field(fields[2], e.max_bytes)) fail("max_bytes is not a number of bytes");
    if (e.min_bytes > e.max_bytes) fail("min_bytes above max_bytes");
    if (!int_field(fields[5], 1, e.channels)) fail("channels: expected -1 or a count");
    if (!int_field(fields[6], 1, e.nodes)) fail("nNodes: expected -1 or a count");
    if (!int_field(fields[7], 1, e.ranks)) fail("nRanks: expected -1 or a count");
    if (fields.size() >= 9 && !int_field(fields[8], 1, e.pipe_ops))
      fail("numPipeOps: expected -1 or a count");
    if (fields.size() >= 10 && !(int_field(fields[9], 0, e.reg_buff) && e.reg_buff <= 1))
      fail("regBuff: expected -1, 0 or 1");
    out.entries.push_back(e);
  }
  return out;
}

const TunerConfEntry* tuner_conf_match(const std::vector<TunerConfEntry>& entries,
                                       const std::string& collective, std::uint64_t bytes,
                                       int nodes, int ranks, int pipe_ops, int reg_buff) {
  for (const auto& e : entries) {
    if (e.collective == collective && bytes >= e.min_bytes && bytes <= e.max_bytes &&
        (e.nodes == -1 || e.nodes == nodes) && (e.ranks == -1 || e.ranks == ranks) &&
        (e.pipe_ops == -1 || e.pipe_ops == pipe_ops) &&
        (e.reg_buff == -1 || e.reg_buff == reg_buff)) {
      return &e;
    }
  }
  return nullptr;
}

}  // namespace linksim::testing
