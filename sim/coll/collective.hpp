#pragma once
// Collective operations, the algorithms that run them and the protocols that carry their data,
// with the names NCCL and nccl-tests use for them.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace linksim::coll {

enum class Op { all_reduce, all_gather, reduce_scatter, broadcast, reduce, alltoall, sendrecv };
enum class Algorithm { ring, tree, nvls, pairwise };
enum class Protocol { ll, ll128, simple };

std::string_view to_string(Op op);
std::string_view to_string(Algorithm a);
std::string_view to_string(Protocol p);
// Accept NCCL's spellings too: "Ring", "RING", "LL128", "Simple".
std::optional<Op> op_from_string(std::string_view name);
std::optional<Algorithm> algorithm_from_string(std::string_view name);
std::optional<Protocol> protocol_from_string(std::string_view name);
std::vector<std::string> op_names();

// nccl-tests binaries: "all_reduce_perf" <-> Op::all_reduce.
std::optional<Op> op_from_nccl_tests_binary(std::string_view binary);
std::string nccl_tests_binary(Op op);
std::vector<std::string> nccl_tests_binaries();

// nccl-tests' bus bandwidth factor for n ranks (doc/PERFORMANCE.md): all_reduce 2(n-1)/n;
// all_gather, reduce_scatter, alltoall (n-1)/n; broadcast, reduce, sendrecv 1.
double busbw_factor(Op op, int n);

}  // namespace linksim::coll
