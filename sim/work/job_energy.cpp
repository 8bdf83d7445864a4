#include "sim/work/job_energy.hpp"

#include <fmt/format.h>

#include "sim/work/job_result.hpp"
#include "sim/work/power_model.hpp"

namespace linksim::work {
namespace {

const topo::GpuModel& first_gpu(const topo::Topology& machine) {
  return *machine.node(machine.nodes_of(topo::NodeKind::gpu).front()).gpu;
}

}  // namespace

// The hosts a plan of `gpus` occupies: on a cluster whole hosts, as its price counts them.
PoweredMachines powered_machines(const topo::Topology& machine, int gpus) {
  PoweredMachines m;
  m.gpu_tdp_w = first_gpu(machine).tdp_w;
  m.busy_gpus = gpus;
  if (machine.cluster) {
    const int per = machine.cluster->gpus_per_host;
    m.hosts = (gpus + per - 1) / per;
    m.powered_gpus = m.hosts * per;
  } else {
    m.hosts = 1;
    m.powered_gpus = static_cast<int>(machine.count(topo::NodeKind::gpu));
  }
  if (machine.host_power) m.host_non_gpu_w = machine.host_power->non_gpu_w;
  return m;
}

std::optional<std::string> energy_unknown_note(const topo::Topology& machine) {
  const topo::GpuModel& gpu = first_gpu(machine);
  if (gpu.tdp_w > 0) return std::nullopt;
  return fmt::format(
      "energy not reported: {} has no published board power (give tdp_w in the machine "
      "file's gpu_models)",
      gpu.name);
}

std::optional<JobEnergy> job_energy(const topo::Topology& machine, const JobResult& r) {
  if (energy_unknown_note(machine) || !(r.step_s > 0)) return std::nullopt;
  const PoweredMachines m = powered_machines(machine, r.gpus);
  const auto at = [&](double step_s, PowerEnd end) {
    // The split scales with the step: the same shares of a faster or slower step.
    return step_energy_j(m, step_s, r.compute_s * step_s / r.step_s, power_constants(end));
  };
  JobEnergy e;
  e.step_j = at(r.step_s, PowerEnd::point);
  const topo::Range step = r.step_range_s.value_or(topo::Range{r.step_s, r.step_s});
  e.step_j_range = {at(step.lo, PowerEnd::low), at(step.hi, PowerEnd::high)};
  e.mean_power_w = e.step_j / r.step_s;
  if (r.tokens_per_step > 0) {
    e.per_token_j = e.step_j / r.tokens_per_step;
    e.per_token_j_range = {e.step_j_range.lo / r.tokens_per_step,
                           e.step_j_range.hi / r.tokens_per_step};
  }
  e.includes_hosts = m.host_non_gpu_w.has_value();
  if (machine.host_power) e.host_source = machine.host_power->source;
  if (r.to_train) {
    // The wall-clock time at the step's mean power: time lost to goodput (restarts,
    // checkpoints) is counted at the same power, as the machines stay on.
    const double steps = r.to_train->time_s / r.step_s;
    e.to_train_j = e.step_j * steps;
    e.to_train_j_range = topo::Range{e.step_j_range.lo * steps, e.step_j_range.hi * steps};
  }
  return e;
}

std::optional<ServingEnergy> serving_energy(const PoweredMachines& m, double duration_s,
                                            double busy_gpu_s, double output_tokens) {
  if (!(m.gpu_tdp_w > 0) || !(duration_s > 0) || !(output_tokens > 0)) return std::nullopt;
  const int gpus = m.busy_gpus;
  const auto at = [&](PowerEnd end) {
    // Between iterations a replica waits for requests with no kernel running: idle power
    // (wait_activity 0), not the spinning of a collective.
    PowerConstants c = power_constants(end);
    c.wait_activity = 0;
    return step_energy_j(m, duration_s, busy_gpu_s / gpus, c);
  };
  ServingEnergy e;
  const double joules = at(PowerEnd::point);
  e.per_output_token_j = joules / output_tokens;
  e.per_output_token_j_range = {at(PowerEnd::low) / output_tokens,
                                at(PowerEnd::high) / output_tokens};
  e.mean_power_w = joules / duration_s;
  e.includes_hosts = m.host_non_gpu_w.has_value();
  return e;
}

}  // namespace linksim::work
