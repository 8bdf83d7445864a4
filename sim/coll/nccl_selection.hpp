#pragma once
// NCCL's own spelling of which algorithms and protocols it may use: NCCL_ALGO and NCCL_PROTO
// (https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html). A comma-separated list
// allows exactly those ("Ring,Tree"); a list after '^' allows all but those ("^NVLS"). Names
// ignore case, as NCCL's do. NCCL_NVLS_ENABLE=0 takes NVLS (and NVLSTree) out.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/coll/collective.hpp"

namespace linksim::coll {

// The per-operation form, as NCCL's parseList reads it (src/graph/tuning.cc @v2.30.7-1,
// ncclTopoTuneModel): entries split by ';', each "op:list" or, for the first only, a bare list
// for every operation; a later entry for an operation replaces what an earlier one gave it
// ("ring,tree;allreduce:tree" is Tree for AllReduce, Ring and Tree for the rest). The operations
// are NCCL's ncclFuncStr (init.cc), in any case: Broadcast, Reduce, AllGather, ReduceScatter,
// AllReduce. The list that applies to `op`, or nullopt where no entry names it (then NCCL keeps
// every algorithm / protocol enabled) or `op` is none of those five (NCCL_ALGO / NCCL_PROTO do not
// steer its point-to-point operations). Every entry is checked, whichever operation it names, as
// NCCL checks them: an unknown operation, or a bare list after the first entry, throws InputError
// naming `source`.
std::optional<std::string> nccl_list_for_op(std::string_view text, Op op,
                                            const std::string& source);

// The algorithms the list allows, in registry order. Throws InputError naming `source` (the
// variable or setting the text came from) for an unknown name or an empty list. With `op` the
// list may take the per-operation form (nccl_list_for_op; every entry's names are checked) and
// an operation no entry names allows every algorithm (an empty vector); without one the
// per-operation form is refused.
std::vector<Algorithm> parse_nccl_algo(std::string_view text, const std::string& source,
                                       std::optional<Op> op = std::nullopt);
std::vector<Protocol> parse_nccl_proto(std::string_view text, const std::string& source,
                                       std::optional<Op> op = std::nullopt);

// `allowed` less the NVLS algorithms (everything the registry has, when `allowed` is empty).
std::vector<Algorithm> without_nvls(const std::vector<Algorithm>& allowed);

}  // namespace linksim::coll
