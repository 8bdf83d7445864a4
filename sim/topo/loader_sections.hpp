#pragma once
// Private to the machine loader (loader.cpp and the parse_*.cpp beside it): one parser per
// section of the machine format (docs/topology-format.md), the field readers they share, and
// the whole-machine checks. Every failure is an InputError naming the file and JSON pointer.

#include <fmt/format.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/json_view.hpp"
#include "sim/topo/gpu_model.hpp"
#include "sim/topo/loader.hpp"
#include "sim/topo/template_expr.hpp"
#include "sim/topo/topology.hpp"

namespace linksim::topo {

// GPU models a file defines under "gpu_models", by name; they shadow the catalog's.
using GpuModels = std::map<std::string, GpuModel>;

// ---- field readers (parse_fields.cpp) ----
// A bandwidth within [kMinBandwidth_Bps, kMaxBandwidth_Bps].
double bandwidth_field(const JsonView& v);
// A per-hop latency in (0, kMaxLatency_s].
double latency_field(const JsonView& v);

// [lo, hi] around `nominal`, each end read by `read`.
template <class Read>
Range range_field(const JsonView& v, double nominal, Read read, const std::string& what) {
  const auto ends = v.elements();
  if (ends.size() != 2) v.fail(fmt::format("expected [low, high] around {}", what));
  const Range r{read(ends[0]), read(ends[1])};
  if (!(r.lo <= nominal && nominal <= r.hi)) {
    v.fail(fmt::format("expected [low, high] with low <= {} <= high", what));
  }
  return r;
}

// A node's "cpuid", "pci" and "nccl" blocks (parse_device_identity.cpp); "nccl" takes a GPU's
// fields (dev, rank, gdr) for `kind` gpu and a network device's otherwise.
CpuIdentity cpu_identity_field(const JsonView& v);
PciIdentity pci_identity_field(const JsonView& v);
NcclDevice nccl_device_field(const JsonView& v, NodeKind kind);

// ---- bounds on a file's expansion ----
// A node entry's "count" (parse_nodes.cpp).
inline constexpr std::int64_t kMaxNodesPerEntry = 1'000'000;
// The combinations of one link entry's "for" variables (parse_loops.cpp).
inline constexpr std::uint64_t kMaxLoopBindings = 1'000'000;
// All node entries of one file together, counts expanded.
inline constexpr std::uint64_t kMaxNodesPerFile = 1'000'000;
// All link entries of one file together, "for" loops expanded.
inline constexpr std::uint64_t kMaxLinksPerFile = 2'000'000;
// The file's nodes and links counted from "count" and "for" alone, before anything is expanded
// (parse_totals.cpp): past a total, fails at the entry that crosses it ("count" or "for"),
// naming the entry. Entries whose count or "for" is itself bad are left to their section's
// parser, which says why.
void check_expansion_totals(const JsonView& root);

// ---- templates and "for" loops (parse_loops.cpp) ----
// `pattern` expanded with `vars`; a bad template fails at `where`.
std::string expand_or_fail(const JsonView& where, const std::string& pattern,
                           const TemplateVars& vars);
// An int field that may also be a template string ("{i/4}").
int template_int(const JsonView& v, const TemplateVars& vars);
// " (with g=1, h=2)" for messages, "" when there are no variables.
std::string describe_vars(const TemplateVars& vars);
// Cartesian product of a "for" object's variables, in key order (first key varies slowest);
// one empty binding when there is no "for".
std::vector<TemplateVars> loop_bindings(const std::optional<JsonView>& loops);

// ---- sections ----
// "gpu_models" (parse_gpu_models.cpp); empty when the file has none.
GpuModels parse_gpu_models(const std::optional<JsonView>& gpu_models_view);
// "nodes" (parse_nodes.cpp): adds every node, counted ones expanded, to `topo`.
void parse_nodes(const JsonView& nodes_view, const GpuModels& models, Topology& topo);
// "links" (parse_links.cpp): adds every link, "for" loops expanded, between existing nodes.
void parse_links(const JsonView& links_view, Topology& topo);
// "host_launch" (parse_calibration.cpp), over what a base gave: a field the file omits
// (range) keeps the base's value.
void parse_host_launch(const JsonView& host_launch_view, HostLaunch& out);
// "collective_calibration" with its "by_op" block (parse_calibration.cpp), over what a base
// gave: the overall scales and source are replaced, "by_op" entries replace the base's
// entries of the same operation and keep the others.
void parse_collective_calibration(const JsonView& calibration_view,
                                  CollectiveCalibration& collective);
// "host_power" (parse_host_power.cpp): what the host draws beside its GPUs.
HostPower parse_host_power(const JsonView& host_power_view);
// "instance" (parse_instance.cpp): a cloud instance's provider, price and network.
Instance parse_instance(const JsonView& instance_view);

// Where a load is in its chain of "base" files, and how it reads them.
struct BaseChain {
  const MachineFileReader& read;
  int depth = 0;  // 0 for the file asked for, +1 per "base" followed
};
// "base" and "replace_models" (parse_base.cpp): the base machine, read through `chain.read`
// relative to `file`'s folder, with its GPU models replaced as asked.
Topology parse_base(const JsonView& root, const JsonView& base_view, const std::string& file,
                    const BaseChain& chain);
// The whole document (loader.cpp); parse_base calls it for the base file.
Topology parse_machine(const Json& document, const std::string& file, const BaseChain& chain);

// ---- whole-machine checks (machine_checks.cpp) ----
// Every GPU reaches every other over some links; otherwise no job can span them.
void check_connected(const Topology& topo, const JsonView& root);
// No GPU uses more NVLinks than its model has.
void check_nvlink_budget(const Topology& topo, const JsonView& root);

}  // namespace linksim::topo
