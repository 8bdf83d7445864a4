#pragma once
// `linksim p2p` and `linksim bandwidth` for programs (--format json|csv): the same figures the
// samples' printouts carry (copy_bench_table.hpp), at full precision and in SI units, so a
// script needs no parser for the samples' layouts. Numbers are written in their shortest
// round-trip form, so equal runs give equal bytes.
//
// JSON, p2p: {"machine", "gpus": [model...], "peer_access": [[bool]], "copy_bytes",
//   "p2p_disabled" and "p2p_enabled": {"unidirectional_Bps", "bidirectional_Bps", "latency_s",
//   "cpu_latency_s": [[src][dst]]}}.
// JSON, bandwidth: {"machine", "devices": [ordinal...], "results": [{"direction": "H2D"|"D2H"|
//   "D2D", "size_bytes", "bandwidth_Bps"}]}; with every device, bandwidth is the cumulative sum.
// CSV: one value per row, "matrix,src,dst,value" for p2p (matrix names as the JSON's, e.g.
//   p2p_enabled.unidirectional_Bps) and "direction,size_bytes,bandwidth_Bps" for bandwidth.

#include <string>

#include "sim/report/copy_bench_table.hpp"

namespace linksim::report {

std::string p2p_test_json(const topo::Topology& topo, const P2pTestOptions& options = {});
std::string p2p_test_csv(const topo::Topology& topo, const P2pTestOptions& options = {});

std::string bandwidth_test_json(const topo::Topology& topo,
                                const BandwidthTestOptions& options = {});
std::string bandwidth_test_csv(const topo::Topology& topo,
                               const BandwidthTestOptions& options = {});

}  // namespace linksim::report
