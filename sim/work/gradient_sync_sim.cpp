#include "sim/work/gradient_sync_sim.hpp"

#include <fmt/format.h>

#include <vector>

#include "sim/coll/collective_sim.hpp"
#include "sim/core/units.hpp"
#include "sim/work/advice.hpp"
#include "sim/work/placement.hpp"

namespace linksim::work {

using engine::TaskId;

namespace {

// Compute, then the sync, nothing beside it: everything after the compute is exposed.
void fill_sync_result(JobResult& r, double makespan_s, const GradientSync& g) {
  r.step_s = makespan_s;
  r.request_s = r.step_s;
  r.compute_s = g.compute_s;
  r.comm_s = r.step_s - g.compute_s;
  r.exposed_comm_s = r.comm_s;
  r.comm_share = r.exposed_comm_s / r.step_s;
  r.by_group["DP"] = {1, r.comm_s, g.gradient_bytes};
}

}  // namespace

GradientSyncResult simulate_gradient_sync(const topo::Topology& machine, const Scenario& sc) {
  const GradientSync& g = *sc.gradient_sync;
  const auto gpus = machine.nodes_of(topo::NodeKind::gpu);
  GradientSyncResult out;
  for (JobResult* r : {&out.simple, &out.realistic}) {
    r->machine = machine.name;
    r->machine_title = machine.title;
    if (machine.instance) {
      r->price_per_hour_usd = machine.instance->price_per_hour_usd;
      r->price_as_of = machine.instance->price_as_of;
    }
    r->gpus = static_cast<int>(gpus.size());
  }
  // The seed's model: all gradient bytes at the GPU's line rate (its NVLinks together, or its
  // PCIe link), after the compute, nothing overlapped.
  {
    double nvlink = 0;
    double pcie = 0;
    for (const auto& l : machine.links()) {
      if (l.a != gpus.front() && l.b != gpus.front()) continue;
      (l.kind == topo::LinkKind::nvlink ? nvlink : pcie) += l.bandwidth_Bps;
    }
    const double line = nvlink > 0 ? nvlink : pcie;
    engine::Simulation sim({line}, gpus.size());
    const TaskId c = sim.add_compute(0, g.compute_s, {});
    const engine::ChannelId ch = 0;
    const engine::PathShare path{sim.add_path({&ch, 1}, 0), 1.0};
    sim.add_transfer(g.gradient_bytes, {&path, 1}, 0, 1, {&c, 1});
    JobResult& r = out.simple;
    fill_sync_result(r, sim.run().makespan_s, g);
    r.notes.push_back(
        fmt::format("the seed's simple model: {} at the GPU's line rate of {} ({}), "
                    "after the compute, nothing overlapped",
                    units::format_bytes(g.gradient_bytes), units::format_bandwidth(line),
                    nvlink > 0 ? "all its NVLinks" : "its PCIe link"));
  }
  // Realistic: compute on every GPU, then an NCCL all-reduce over all of them.
  {
    Placement placement(machine, gpus, {});
    std::vector<TaskId> computes;
    for (topo::NodeId gpu : gpus) {
      computes.push_back(
          placement.add({.kind = WorkKind::compute, .amount = g.compute_s, .gpu = gpu}, {}).end);
    }
    CollectiveWork all_reduce{coll::Op::all_reduce, gpus, sc.algorithm, sc.protocol};
    placement.add(
        {.kind = WorkKind::collective, .amount = g.gradient_bytes, .collective = &all_reduce},
        computes);
    coll::Request req;
    req.op = coll::Op::all_reduce;
    req.size_bytes = g.gradient_bytes;
    req.algorithm = sc.algorithm;
    req.protocol = sc.protocol;
    const coll::Communicator& comm = placement.communicator(gpus);
    const coll::Outcome best = coll::simulate_collective(comm, req);
    engine::Simulation& sim = placement.simulation();
    JobResult& r = out.realistic;
    fill_sync_result(r, sim.run().makespan_s, g);
    r.by_collective["all_reduce"] = {1, r.comm_s, g.gradient_bytes};
    r.notes.push_back(fmt::format("NCCL all-reduce over {} GPUs ({}/{}), simulated: busbw {}",
                                  comm.size(), coll::to_string(best.choice.algorithm),
                                  coll::to_string(best.choice.protocol),
                                  units::format_bandwidth(best.busbw_Bps)));
    if (best.bottleneck) r.bottlenecks.push_back(machine.channel_name(*best.bottleneck));
    r.advice = advise(r, sc);
  }
  out.simple.advice = advise(out.simple, sc);
  return out;
}

}  // namespace linksim::work
