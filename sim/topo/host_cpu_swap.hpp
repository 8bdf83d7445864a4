#pragma once
// "The same baseboard in another host": a machine file with "base" replaces its base's CPUs
// ("replace_cpus"). Cloud instances put a reference GPU baseboard (HGX H100) in their own host:
// AWS's p5 has two AMD EPYC 7R13 where the DGX H100 it is drawn from has Intel Xeons. The CPU
// vendor matters beyond the label: NCCL's model charges an AMD host twice the per-step network
// overhead and a lower LL ceiling across nodes, and the CPU's root ports and socket link carry
// every host-staged copy.

#include "sim/core/json_view.hpp"
#include "sim/topo/topology.hpp"

namespace linksim::topo {

// Applies `replace` ({"vendor", "model", "memory_bandwidth"?, "cores"?, "pcie_generation"?,
// "socket_link"?}) to every CPU node of `topo`, a machine taken from a base file:
//  - vendor and model replace each CPU's; memory_bandwidth and cores (one CPU list, or one per
//    CPU node in order) replace them where given, and are dropped otherwise (the base's figures
//    belong to its own CPU);
//  - pcie_generation: links between a CPU and its PCIe devices run at the lower of the link's
//    and the root ports' generation (re-rated from the kind's defaults);
//  - socket_link ({"kind": "upi" | "xgmi" | "qpi", "generation"?, "lanes"?}): every link joining
//    two sockets (UPI, QPI or xGMI between CPU nodes of different sockets) becomes that link, at
//    its kind's default figures. Without it, a vendor change that leaves the base's socket links
//    of the other vendor's kind is refused.
// A re-rated link must carry its kind's default figures (no bandwidth of its own); otherwise, or
// on any other bad field, throws InputError at /replace_cpus/<field>, saying what differs.
void replace_host_cpus(const JsonView& replace, Topology& topo);

// The same replacement written into a self-contained machine document (its "nodes" and "links"
// as written, "for" loops kept): what `linksim fit` calibrates for a file with "base". Loading
// the result gives the CPUs and links replace_host_cpus gives (host_cpu_swap_test.cpp holds the
// two side by side). Throws InputError at /replace_cpus/<field> where a link to re-rate has
// figures of its own.
void replace_host_cpus_in_document(const JsonView& replace, Json& machine);

}  // namespace linksim::topo
