#pragma once
// `linksim topo check` and `linksim topo list` for programs (--format json|csv): the figures of
// topo::summarize (and a cluster's topo::summarize_fabric) in SI units, numbers in their
// shortest round-trip form so that equal runs give equal bytes.
//
// JSON, check: {"machine", "file", "title", "gpus", "gpu_models": {model: count}, "links":
//   {label: count}, "nvswitches", "pcie_switches", "cpus", "sockets", "nics",
//   "nvlink_injection_Bps", "pcie_injection_Bps", "bisection_Bps" (null past 16 GPUs),
//   "fastest_pair" / "slowest_pair": {"a", "b", "transport", "bandwidth_Bps"} or null,
//   "transports": {name: ordered pairs}, "notes": [...], and for a cluster "fabric": {"hosts",
//   "gpus", "rails", "leaves", "spines", "cores", "per_gpu_scale_out_Bps",
//   "per_host_scale_out_Bps", "bisection_Bps", "oversubscription", "hops_same_leaf",
//   "hops_worst"}}. Of a cluster, everything but "fabric" describes one host.
// CSV, check: a header and one row of the scalar figures (the same names).
// JSON, list: [{"machine", "file", "gpus", "gpu_models", "price_per_hour_usd", "price_as_of"
//   (both null when not listed), "title"}]; CSV, list:
//   "machine,gpus,gpu_models,price_per_hour_usd,price_as_of,title", models as "8x H100-SXM5-80GB"
//   joined by " + ".

#include <string>
#include <vector>

#include "sim/topo/topology.hpp"

namespace linksim::report {

std::string machine_check_json(const topo::Topology& machine);
std::string machine_check_csv(const topo::Topology& machine);

std::string machines_list_json(const std::vector<topo::Topology>& machines);
std::string machines_list_csv(const std::vector<topo::Topology>& machines);

}  // namespace linksim::report
