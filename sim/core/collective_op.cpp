#include "sim/core/collective_op.hpp"

#include <array>

#include "sim/core/ascii_case.hpp"

namespace linksim {
namespace {

struct OpName {
  CollectiveOp op;
  std::string_view name;
};
constexpr std::array<OpName, 11> kOps{{
    {CollectiveOp::all_reduce, "all_reduce"},
    {CollectiveOp::all_gather, "all_gather"},
    {CollectiveOp::reduce_scatter, "reduce_scatter"},
    {CollectiveOp::broadcast, "broadcast"},
    {CollectiveOp::reduce, "reduce"},
    {CollectiveOp::alltoall, "alltoall"},
    {CollectiveOp::sendrecv, "sendrecv"},
    {CollectiveOp::scatter, "scatter"},
    {CollectiveOp::gather, "gather"},
    {CollectiveOp::alltoallv, "alltoallv"},
    {CollectiveOp::hypercube, "hypercube"},
}};

}  // namespace

std::string_view to_string(CollectiveOp op) {
  for (const auto& o : kOps) {
    if (o.op == op) return o.name;
  }
  return "?";
}

std::optional<CollectiveOp> collective_op_from_string(std::string_view name) {
  const std::string l = ascii_lower(name);
  for (const auto& o : kOps) {
    if (o.name == l) return o.op;
  }
  if (l == "allreduce") return CollectiveOp::all_reduce;
  if (l == "allgather") return CollectiveOp::all_gather;
  if (l == "reducescatter") return CollectiveOp::reduce_scatter;
  return std::nullopt;
}

std::vector<std::string> collective_op_names() {
  std::vector<std::string> out;
  for (const auto& o : kOps)
    out.emplace_back(o.name);
  return out;
}

}  // namespace linksim
