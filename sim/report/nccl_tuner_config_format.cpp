#include "sim/report/nccl_tuner_config_format.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace linksim::report {

std::optional<std::string_view> nccl_tuner_collective_name(coll::Op op) {
  switch (op) {
    case coll::Op::all_reduce:
      return "allreduce";
    case coll::Op::all_gather:
      return "allgather";
    case coll::Op::reduce_scatter:
      return "reducescatter";
    case coll::Op::broadcast:
      return "broadcast";
    case coll::Op::reduce:
      return "reduce";
    default:
      return std::nullopt;
  }
}

std::optional<std::string_view> nccl_tuner_algorithm_name(coll::Algorithm algorithm) {
  // linksim's algorithms go by NCCL's names (NCCL_ALGO's spelling); the plugin's are lower case
  // with an underscore before a second word.
  const std::string_view name = algorithm.name();
  if (name == "Ring") return "ring";
  if (name == "Tree") return "tree";
  if (name == "CollNetDirect") return "collnet_direct";
  if (name == "CollNetChain") return "collnet_chain";
  if (name == "NVLS") return "nvls";
  if (name == "NVLSTree") return "nvls_tree";
  if (name == "PAT") return "pat";
  return std::nullopt;
}

std::string_view nccl_tuner_protocol_name(coll::Protocol protocol) {
  switch (protocol) {
    case coll::Protocol::ll:
      return "ll";
    case coll::Protocol::ll128:
      return "ll128";
    case coll::Protocol::simple:
      break;
  }
  return "simple";
}

std::string nccl_tuner_config_row(const NcclTunerConfigLine& line) {
  const auto collective = nccl_tuner_collective_name(line.op);
  const auto algorithm = nccl_tuner_algorithm_name(line.algorithm);
  if (!collective || !algorithm) {
    throw std::invalid_argument(fmt::format("the tuner plugin has no name for {} with {}",
                                            to_string(line.op), line.algorithm.name()));
  }
  return fmt::format("{},{},{},{},{},{},{},{},-1,-1", *collective, line.min_bytes, line.max_bytes,
                     *algorithm, nccl_tuner_protocol_name(line.protocol), line.channels, line.nodes,
                     line.ranks);
}

namespace {

// `text` as "# ..." lines of at most kNcclTunerMaxLineChars, wrapped at spaces.
void add_comment(const std::string& text, std::string& out) {
  constexpr std::string_view kLead = "# ";
  const std::size_t width = kNcclTunerMaxLineChars - kLead.size();
  std::string_view rest = text;
  while (true) {
    if (rest.size() <= width) {
      out += rest.empty() ? "#" : fmt::format("{}{}", kLead, rest);
      out += '\n';
      return;
    }
    const std::size_t cut = rest.substr(0, width + 1).rfind(' ');
    if (cut == std::string_view::npos || cut == 0) {
      throw std::invalid_argument(
          fmt::format("a comment word is too long for the tuner plugin's lines: {}", text));
    }
    out += fmt::format("{}{}\n", kLead, rest.substr(0, cut));
    rest.remove_prefix(cut + 1);
  }
}

}  // namespace

std::string format_nccl_tuner_config(const std::vector<std::string>& header,
                                     const std::vector<NcclTunerConfigLine>& lines) {
  std::string out;
  for (const auto& h : header)
    add_comment(h, out);
  add_comment(
      "Format: collective_type,min_bytes,max_bytes,algorithm,protocol,channels,nNodes,nRanks,"
      "numPipeOps,regBuff",
      out);
  for (const auto& line : lines) {
    out += '\n';
    for (const auto& c : line.comments)
      add_comment(c, out);
    out += nccl_tuner_config_row(line);
    out += '\n';
  }
  return out;
}

}  // namespace linksim::report
