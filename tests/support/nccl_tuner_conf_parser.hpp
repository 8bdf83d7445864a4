#pragma once
// A reader of NCCL's example tuner plugin's CSV file, written from the plugin's source and
// README (NVIDIA/nccl plugins/tuner/example/plugin.c loadConfig and pluginGetCollInfo,
// README.md "Configuration File Format", @5067397c), to check what `linksim tune` writes
// independently of linksim's writer. It reads what the plugin reads, and is stricter where the
// plugin would silently do something else:
// - lines are read with fgets into 256 bytes, so a line (newline included) must fit in 255
//   characters, or its rest becomes a line of its own: an error here;
// - a line whose first character is '#' is a comment, an empty line is skipped;
// - fields split at commas with empty fields dropped (strtok), then trimmed of spaces and tabs;
//   an empty field is an error here (it would shift the fields after it);
// - 8 to 10 fields (numPipeOps and regBuff optional, -1 when absent); the plugin skips others,
//   an error here;
// - the plugin turns an unknown collective, algorithm or protocol into allreduce, ring or
//   simple, and reads numbers with atoi and strtoull, which take any text: errors here;
// - channels, nNodes, nRanks, numPipeOps: a positive number or -1 (any / keep); regBuff 0, 1 or
//   -1; min_bytes <= max_bytes (a row the other way round never matches).
// A carriage return is an error (the plugin would keep it in the last field).

#include <cstdint>
#include <string>
#include <vector>

namespace linksim::testing {

struct TunerConfEntry {
  std::string collective;
  std::uint64_t min_bytes = 0;
  std::uint64_t max_bytes = 0;
  std::string algorithm;
  std::string protocol;
  int channels = -1;
  int nodes = -1;
  int ranks = -1;
  int pipe_ops = -1;
  int reg_buff = -1;
  int line = 0;  // 1-based
};

struct TunerConfParse {
  std::vector<TunerConfEntry> entries;  // in file order
  std::vector<std::string> errors;      // "line N: what", in file order
};

TunerConfParse parse_tuner_conf(const std::string& text);

// The entry the plugin applies to a call (pluginGetCollInfo: the first whose collective, size
// range, nNodes, nRanks, numPipeOps and regBuff match), or nullptr when none does.
const TunerConfEntry* tuner_conf_match(const std::vector<TunerConfEntry>& entries,
                                       const std::string& collective, std::uint64_t bytes,
                                       int nodes, int ranks, int pipe_ops = 1, int reg_buff = 0);

}  // namespace linksim::testing
