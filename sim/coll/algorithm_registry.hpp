#pragma once
// The collective algorithms by name. Every list of algorithm names (the CLI's choices and its
// --help, scenario validation, the planner's candidates) comes from here; a test checks those
// that cannot read it (scenarios/schema.json, docs) against it.

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/coll/algorithm.hpp"

namespace linksim::coll {

class AlgorithmRegistry {
 public:
  // The built-in algorithms (sim/coll/algorithms/), in a stable order: Ring, Tree, NVLS, P2P, PAT,
  // NVLSTree, CollNetDirect, CollNetChain.
  // The order is part of the contract: the planner tries candidates in it (a tie goes to the
  // first), and names are listed in it.
  static const AlgorithmRegistry& builtin();

  // REQUIRES: no two plug-ins share a name or alias, ignoring case (else std::logic_error).
  // The plug-ins must outlive the registry.
  explicit AlgorithmRegistry(std::vector<const CollectiveAlgorithm*> algorithms);

  const std::vector<const CollectiveAlgorithm*>& algorithms() const { return algorithms_; }
  // NCCL names, in order.
  std::vector<std::string> names() const;

  // By NCCL name or alias, ignoring case ("ring", "RING", "p2p", "pairwise").
  std::optional<Algorithm> find(std::string_view name) const;
  // `unknown algorithm "X"; expected one of Ring, Tree, NVLS, P2P`, for an unknown `name`.
  std::string unknown_name_message(std::string_view name) const;

  // The plug-in behind `a`. REQUIRES: `a` is registered here (else std::logic_error).
  const CollectiveAlgorithm& get(Algorithm a) const;

 private:
  std::vector<const CollectiveAlgorithm*> algorithms_;
};

// Shorthands for the built-in registry's plug-in behind `a`.
double base_latency_s(Algorithm a, Protocol p);
double hop_latency_s(Algorithm a, Protocol p, HwClass c);

}  // namespace linksim::coll
