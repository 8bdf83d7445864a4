#pragma once
// NCCL_PROTO's syntax, read once for every place a protocol list comes from: the command line
// and the environment (coll::parse_nccl_proto) and a cluster file's nccl_env (the topo loader).
// NCCL's parseList takes a comma list of names in any case, or ^list for all but those; linksim
// also ignores spaces around a name and refuses NCCL's per-operation form (op:list;...), which it
// does not model.

#include <array>
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace linksim {

// NCCL's three protocols as NCCL spells them, in the order every protocol index and mask uses
// (coll::Protocol's too). Core owns the names so that the command line, a cluster file and the
// notes that echo them agree.
inline constexpr std::array<std::string_view, 3> kNcclProtocolNames{"LL", "LL128", "Simple"};

// A protocol's index in kNcclProtocolNames, its name read in any case ("ll128" -> 1); nullopt
// for anything else.
std::optional<std::size_t> nccl_protocol_index(std::string_view name);

// Which of [LL, LL128, Simple] the list allows.
using NcclProtocolMask = std::array<bool, 3>;

// The allowed protocols as an NCCL_PROTO list in NCCL's spelling and order: "LL,Simple".
std::string nccl_protocol_list_text(const NcclProtocolMask& allowed);

// The reason a list was refused, without where it came from: each caller adds that (a file and
// JSON path, or the option's name).
class NcclListError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Throws NcclListError for an unknown name, an empty list, a per-operation list, or a list that
// allows no protocol.
NcclProtocolMask parse_nccl_protocol_list(std::string_view text);

}  // namespace linksim
