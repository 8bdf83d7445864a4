#pragma once
// NCCL's own spelling of which algorithms and protocols it may use: NCCL_ALGO and NCCL_PROTO
// (https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html). A comma-separated list
// allows exactly those ("Ring,Tree"); a list after '^' allows all but those ("^NVLS"). Names
// ignore case, as NCCL's do. NCCL_NVLS_ENABLE=0 takes NVLS (and NVLSTree) out.

#include <string>
#include <string_view>
#include <vector>

#include "sim/coll/collective.hpp"

namespace linksim::coll {

// The algorithms the list allows, in registry order. Throws InputError naming `source` (the
// variable or setting the text came from) for an unknown name, an empty list or a per-operation
// form ("allreduce:tree"), which is not modelled.
std::vector<Algorithm> parse_nccl_algo(std::string_view text, const std::string& source);
std::vector<Protocol> parse_nccl_proto(std::string_view text, const std::string& source);

// `allowed` less the NVLS algorithms (everything the registry has, when `allowed` is empty).
std::vector<Algorithm> without_nvls(const std::vector<Algorithm>& allowed);

}  // namespace linksim::coll
