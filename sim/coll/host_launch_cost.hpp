#pragma once
// What the host pays to launch one collective on one GPU, when a machine file does not say
// (topo::HostLaunch, fitted by `linksim fit`): one table by host CPU class, each row citing a
// published measurement of CUDA kernel-launch overhead that is independent of the nccl-tests
// sweeps linksim is checked against.

#include <string>
#include <string_view>
#include <vector>

#include "sim/coll/collective_sim.hpp"
#include "sim/topo/topology.hpp"

namespace linksim::coll {

struct HostLaunchCostRow {
  std::string_view cpu_class;  // a CpuInfo::vendor ("intel", "amd", ...) or "other"
  double per_gpu_s;
  std::string_view source;
};

// The rows, "other" last (the fallback for a vendor without a row).
const std::vector<HostLaunchCostRow>& host_launch_cost_table();

// The default for a host whose CPUs are of `cpu_class` ("other" when it has no row).
const HostLaunchCostRow& default_host_launch(std::string_view cpu_class);

// The CPU class of the machine's host: the vendor of its first cpu node, "other" without one.
std::string host_cpu_class(const topo::Topology& machine);

// Per-GPU launch cost in force on `machine`: its own host_launch (a fit or a hand value) when
// it has one, else the table's row for its CPU class.
double host_launch_per_gpu_s(const topo::Topology& machine);

// Where that figure comes from, for a note to the user: the file's source, or the row's.
std::string host_launch_source(const topo::Topology& machine);

// A training or inference framework runs one process per GPU and keeps launching its
// collectives back to back, so a collective of GPU time T costs max(T, L) when each launch
// takes L on the host (a stream that has many ops queued hides L under T; a short op waits for
// the next launch). Returns `o` with that time, bandwidths scaled to match and host_bound set
// when L > T. For the job simulator.
Outcome with_framework_launch(Outcome o, const topo::Topology& machine);

}  // namespace linksim::coll
