#pragma once
// Collective operations, the algorithms that run them and the protocols that carry their data,
// with the names NCCL and nccl-tests use for them.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/collective_op.hpp"

namespace linksim::coll {

// The operations are core's vocabulary (sim/core/collective_op.hpp); coll names them Op.
using Op = CollectiveOp;
using ::linksim::to_string;
enum class Protocol { ll, ll128, simple };

// Names one collective algorithm: a plug-in of the registry (algorithm_registry.hpp), by its
// NCCL name. A small value to store, compare and print; the registry turns a user's spelling
// into one and gives the plug-in behind it. Only a plug-in (CollectiveAlgorithm::id) and the
// constants below make one, so a value always names a plug-in. The built-in algorithms have a
// constant each for code that means one of them; a new algorithm needs none (it is found by
// name).
class Algorithm {
 public:
  static const Algorithm ring;
  static const Algorithm tree;
  static const Algorithm nvls;
  static const Algorithm pairwise;

  constexpr std::string_view name() const { return name_; }
  friend constexpr bool operator==(const Algorithm&, const Algorithm&) = default;

 private:
  friend class CollectiveAlgorithm;  // a plug-in's id()
  // REQUIRES: `name` views storage that lives as long as the program (a literal).
  constexpr explicit Algorithm(std::string_view name) : name_(name) {}
  std::string_view name_;
};
inline constexpr Algorithm Algorithm::ring{"Ring"};
inline constexpr Algorithm Algorithm::tree{"Tree"};
inline constexpr Algorithm Algorithm::nvls{"NVLS"};
inline constexpr Algorithm Algorithm::pairwise{"P2P"};

std::string_view to_string(Algorithm a);
std::string_view to_string(Protocol p);
// Accept NCCL's spellings too: "Ring", "RING", "LL128", "Simple". Algorithms are looked up in
// the registry (AlgorithmRegistry::find; its unknown_name_message lists the valid names).
std::optional<Op> op_from_string(std::string_view name);
std::optional<Algorithm> algorithm_from_string(std::string_view name);
std::optional<Protocol> protocol_from_string(std::string_view name);
std::vector<std::string> op_names();

// nccl-tests binaries: "all_reduce_perf" <-> Op::all_reduce.
std::optional<Op> op_from_nccl_tests_binary(std::string_view binary);
std::string nccl_tests_binary(Op op);
std::vector<std::string> nccl_tests_binaries();

// nccl-tests' bus bandwidth factor for n ranks (doc/PERFORMANCE.md and src/<op>.cu *GetBw @
// a0b82b22): all_reduce 2(n-1)/n; all_gather, reduce_scatter, alltoall, scatter, gather,
// alltoallv (n-1)/n; broadcast, reduce, sendrecv, hypercube 1.
double busbw_factor(Op op, int n);

}  // namespace linksim::coll
