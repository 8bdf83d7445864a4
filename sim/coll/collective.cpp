#include "sim/coll/collective.hpp"

#include "sim/coll/algorithm_registry.hpp"
#include "sim/core/ascii_case.hpp"

namespace linksim::coll {

std::string_view to_string(Algorithm a) {
  return a.name();
}

std::string_view to_string(Protocol p) {
  switch (p) {
    case Protocol::ll:
      return "LL";
    case Protocol::ll128:
      return "LL128";
    case Protocol::simple:
      return "Simple";
  }
  return "?";
}

std::optional<Op> op_from_string(std::string_view name) {
  return collective_op_from_string(name);
}

std::optional<Algorithm> algorithm_from_string(std::string_view name) {
  return AlgorithmRegistry::builtin().find(name);
}

std::optional<Protocol> protocol_from_string(std::string_view name) {
  const std::string l = ascii_lower(name);
  if (l == "ll") return Protocol::ll;
  if (l == "ll128") return Protocol::ll128;
  if (l == "simple") return Protocol::simple;
  return std::nullopt;
}

std::vector<std::string> op_names() {
  return collective_op_names();
}

std::optional<Op> op_from_nccl_tests_binary(std::string_view binary) {
  constexpr std::string_view suffix = "_perf";
  if (binary.size() <= suffix.size() || binary.substr(binary.size() - suffix.size()) != suffix) {
    return std::nullopt;
  }
  const std::string_view stem = binary.substr(0, binary.size() - suffix.size());
  const auto op = collective_op_from_string(stem);
  // Only nccl-tests' own spelling names a binary (all_reduce_perf, not allreduce_perf).
  return op && to_string(*op) == stem ? op : std::nullopt;
}

std::string nccl_tests_binary(Op op) {
  return std::string(to_string(op)) + "_perf";
}

std::vector<std::string> nccl_tests_binaries() {
  std::vector<std::string> out;
  for (const auto& name : collective_op_names())
    out.push_back(name + "_perf");
  return out;
}

double busbw_factor(Op op, int n) {
  const double dn = n;
  switch (op) {
    case Op::all_reduce:
      return 2.0 * (dn - 1) / dn;
    case Op::all_gather:
    case Op::reduce_scatter:
    case Op::alltoall:
    case Op::scatter:
    case Op::gather:
    case Op::alltoallv:
      return (dn - 1) / dn;
    case Op::broadcast:
    case Op::reduce:
    case Op::sendrecv:
    case Op::hypercube:
      return 1.0;
  }
  return 1.0;
}

}  // namespace linksim::coll
