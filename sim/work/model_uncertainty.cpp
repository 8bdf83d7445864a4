#include "sim/work/model_uncertainty.hpp"

#include <stdexcept>

namespace linksim::work {

// Data table: one row per kind of constant, read together; not split. The ranges are stated
// from the constants' sources and the validation reports, not fitted to a run.
const std::vector<UncertaintyRow>& model_uncertainty_table() {
  static const std::vector<UncertaintyRow> table = {
      {"compute",
       {0.80, 1.05},
       "The efficiency fractions are best-shape figures from vendors' and authors' own "
       "benchmarks ('up to', large square GEMMs), rounded to 0.05: +5% at the fast end. At the "
       "slow end 0.8x: against published, measured training runs the derived model is fast on "
       "every run, by a median of 12.8% (docs/ACCURACY.md, training jobs), and a 0.8x fraction "
       "slows a compute-bound step by 25%"},
      {"network, one host",
       {0.94, 1.06},
       "Collective bus bandwidth on one host, uncalibrated: median error 4-6% on real machines "
       "outside the reference set (issue 35's held-out sweeps); 6% taken on bandwidth and "
       "latency scales alike"},
      {"network, across hosts",
       {0.85, 1.15},
       "Collectives across hosts, uncalibrated: median bus-bandwidth error 15% on held-out "
       "multi-node sweeps (issue 35); 15% taken on bandwidth and latency scales alike"},
  };
  return table;
}

const UncertaintyRow& uncertainty_row(const std::string& name) {
  for (const auto& row : model_uncertainty_table()) {
    if (row.name == name) return row;
  }
  throw std::logic_error("no uncertainty row " + name);
}

topo::Range stated_compute_factor() {
  return uncertainty_row("compute").factor;
}

topo::Topology with_stated_network_ranges(const topo::Topology& machine) {
  if (topo::has_ranges(machine)) return machine;
  const topo::Range& f =
      uncertainty_row(machine.is_cluster() ? "network, across hosts" : "network, one host").factor;
  topo::Topology out = machine;
  const auto widen = [&f](topo::CollectiveScales& s) {
    s.bandwidth_range = topo::Range{s.bandwidth * f.lo, s.bandwidth * f.hi};
    // A latency's fast end is the short one: the same factors, inverted.
    s.latency_range = topo::Range{s.latency / f.hi, s.latency / f.lo};
  };
  widen(out.collective.all);
  for (auto& [op, s] : out.collective.by_op)
    widen(s);
  return out;
}

}  // namespace linksim::work
