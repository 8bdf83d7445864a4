#pragma once
// The CSV file NCCL's example tuner plugin reads (NVIDIA/nccl plugins/tuner/example, plugin.c
// loadConfig and README.md @5067397c; ext-tuner/example from 2.27.5 to 2.29), through
// NCCL_TUNER_CONFIG_FILE:
//
//   collective_type,min_bytes,max_bytes,algorithm,protocol,channels,nNodes,nRanks,numPipeOps,regBuff
//
// one configuration a line, with the plugin's lower-case names. How the plugin reads it, and so
// what this writer keeps to:
// - it reads with fgets into 256 bytes: a line longer than 255 characters is cut, and its
//   rest read as a line of its own, so every line written here is shorter (comments too);
// - a line whose first character is '#' is a comment, an empty line is skipped; nothing else
//   is (a comment must start in column 0);
// - fields split at commas (strtok: an empty field vanishes), spaces and tabs trimmed;
// - an unknown collective, algorithm or protocol name silently becomes allreduce, ring or
//   simple, so only the names it lists are written;
// - channels -1 is documented as "keep NCCL's default" but leaves the plugin's own default of 1
//   channel (pluginGetCollInfo sets *nChannels = 1 first; its test_plugin.c expects 1), so a
//   count is always written;
// - nNodes, nRanks, numPipeOps: -1 matches any; regBuff -1 matches registered buffers or not.
// - the first matching line wins.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/coll/collective.hpp"

namespace linksim::report {

// The plugin's names (parseCollType, parseAlgorithm, parseProtocol); nullopt for what it has
// no name for (alltoall and the other operations, the P2P algorithm).
std::optional<std::string_view> nccl_tuner_collective_name(coll::Op op);
std::optional<std::string_view> nccl_tuner_algorithm_name(coll::Algorithm algorithm);
std::string_view nccl_tuner_protocol_name(coll::Protocol protocol);

// One configuration line. numPipeOps and regBuff are written as -1 (any).
struct NcclTunerConfigLine {
  coll::Op op = coll::Op::all_reduce;
  std::uint64_t min_bytes = 0;  // inclusive, as the plugin compares: min <= nBytes <= max
  std::uint64_t max_bytes = 0;
  coll::Algorithm algorithm = coll::Algorithm::ring;
  coll::Protocol protocol = coll::Protocol::simple;
  int channels = 1;
  int nodes = -1;  // nNodes; -1 matches any
  int ranks = -1;  // nRanks; -1 matches any
  // Comment lines written just above it ('#' is added; each must fit a line, see above).
  std::vector<std::string> comments;
};

// The line's CSV text, without a newline. REQUIRES: the plugin names the operation and the
// algorithm (std::invalid_argument otherwise).
std::string nccl_tuner_config_row(const NcclTunerConfigLine& line);

// Longest line the plugin reads whole, without its newline (MAX_LINE_LENGTH 256 with fgets).
inline constexpr std::size_t kNcclTunerMaxLineChars = 254;

// The whole file: `header` as comment lines, the format line, an empty line, then each line
// with its comments. A comment too long for one line is wrapped at spaces onto several
// (std::invalid_argument if a single word is too long).
std::string format_nccl_tuner_config(const std::vector<std::string>& header,
                                     const std::vector<NcclTunerConfigLine>& lines);

}  // namespace linksim::report
