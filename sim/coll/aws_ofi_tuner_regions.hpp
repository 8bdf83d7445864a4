#pragma once
// The "region tuner" of the AWS network plugin for NCCL (aws-ofi-nccl v1.16.3,
// src/tuner/nccl_ofi_regions.cpp). On the EC2 instance types it knows, the plugin overrides
// NCCL's own choice of algorithm and protocol from fixed tables measured on those machines:
// per operation, an ordered list of polygons in the plane (x = message bytes, y = ranks), each
// naming one (algorithm, protocol). The first polygon holding the call's point, among those
// whose pair NCCL offers, is the pick; a point in none of them leaves the choice to NCCL. The
// tables exist only for some communicator shapes (GPUs per node) and operations, and the
// plugin stands aside on two nodes or fewer, where it says the regions are not well defined.

#include <functional>
#include <optional>
#include <string_view>

#include "sim/coll/collective.hpp"

namespace linksim::coll {

// aws-ofi-nccl's platforms that have regions (src/tuner/nccl_ofi_tuner.cpp: by the EC2 instance
// type).
enum class AwsOfiPlatform { p5_p5e, p5en, p6_b200 };

// "p5.48xlarge" and "p5e.48xlarge" -> p5_p5e, "p5en.48xlarge" -> p5en, "p6-b200.48xlarge" ->
// p6_b200; nullopt otherwise (exact names, as the plugin compares them with strcmp).
std::optional<AwsOfiPlatform> aws_ofi_platform_of(std::string_view instance_type);

struct AwsOfiRegionPick {
  std::string_view algorithm;  // NCCL's name: "Tree", "Ring", "NVLSTree", "PAT", ...
  Protocol protocol;
  std::optional<int> channels;  // set only where the plugin sets nChannels (P6 Tree/LL128 4-32 MiB)
};

// The plugin's pick for one call (region_get_coll_info_internal_v3): `bytes` is NCCL's nBytes,
// `ranks` and `nodes` the communicator's. `offered` says whether NCCL's cost table has the pair
// (the plugin skips a region whose entry is NCCL_ALGO_PROTO_IGNORE or outside the table); an
// empty `offered` offers every pair.
// REQUIRES nothing; returns nullopt where the plugin falls back to NCCL's own tuner: two nodes
// or fewer, a shape or operation with no table, or a point in no offered region.
std::optional<AwsOfiRegionPick> aws_ofi_region_pick(
    AwsOfiPlatform platform, Op op, double bytes, int ranks, int nodes,
    const std::function<bool(std::string_view algorithm, Protocol)>& offered);

}  // namespace linksim::coll
