#include "sim/coll/collective.hpp"

#include "sim/coll/algorithm_registry.hpp"
#include "sim/core/nccl_proto_list.hpp"

namespace linksim::coll {

std::string_view to_string(Algorithm a) {
  return a.name();
}

// Protocol's order is core's (kNcclProtocolNames, NcclProtocolMask).
static_assert(static_cast<std::size_t>(Protocol::ll) == 0 &&
              static_cast<std::size_t>(Protocol::ll128) == 1 &&
              static_cast<std::size_t>(Protocol::simple) == 2);

std::string_view to_string(Protocol p) {
  return kNcclProtocolNames.at(static_cast<std::size_t>(p));
}

std::optional<Op> op_from_string(std::string_view name) {
  return collective_op_from_string(name);
}

std::optional<Algorithm> algorithm_from_string(std::string_view name) {
  return AlgorithmRegistry::builtin().find(name);
}

std::optional<Protocol> protocol_from_string(std::string_view name) {
  const auto index = nccl_protocol_index(name);
  if (!index) return std::nullopt;
  return static_cast<Protocol>(*index);
}

std::vector<std::string> op_names() {
  return collective_op_names();
}

std::optional<Op> op_from_nccl_tests_binary(std::string_view binary) {
  // An MPI build installed beside the plain one (HPC-X, some distributions) adds "_mpi": the
  // same program.
  constexpr std::string_view mpi = "_mpi";
  if (binary.size() > mpi.size() && binary.substr(binary.size() - mpi.size()) == mpi) {
    binary = binary.substr(0, binary.size() - mpi.size());
  }
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
