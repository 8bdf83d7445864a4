#include "sim/work/job_accounting.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "sim/engine/summary.hpp"

namespace linksim::work {

engine::Names job_names(const topo::Topology& machine, const engine::Simulation& sim,
                        const std::vector<CommRecord>& records,
                        const std::vector<std::pair<engine::TaskId, int>>& compute_tasks,
                        std::vector<std::string> gpu_ids, bool name_tasks) {
  engine::Names names;
  if (name_tasks) {
    names.tasks.resize(sim.task_count());
    for (std::size_t i = 0; i < sim.task_count(); ++i)
      names.tasks[i] = fmt::format("t{}", i);
    for (const auto& r : records) {
      for (engine::TaskId t = r.first_task; t <= r.end; ++t) {
        names.tasks[t] = fmt::format("{} {} #{}", r.group, coll::to_string(r.op), t);
      }
    }
    for (const auto& [task, rank] : compute_tasks)
      names.tasks[task] = fmt::format("compute #{}", task);
  }
  names.gpus = std::move(gpu_ids);
  for (std::size_t c = 0; c < sim.channel_count(); ++c) {
    names.channels.push_back(c < machine.channel_count()
                                 ? machine.channel_name(static_cast<topo::ChannelId>(c))
                                 : fmt::format("protocol cap {}", c));
  }
  return names;
}

void account_job(JobResult& res, const topo::Topology& machine, const Scenario& sc,
                 const engine::Simulation& sim, const engine::Timeline& tl,
                 const engine::Names& names, const std::vector<CommRecord>& records) {
  const engine::Summary summary = engine::summarize(sim, tl, names, comm_ops(records));
  res.step_s = tl.makespan_s;
  for (const auto& g : summary.gpus) {
    res.compute_s += g.compute_s;
    res.comm_s += g.comm_s;
    res.exposed_comm_s += g.exposed_comm_s;
    res.hidden_comm_s += g.hidden_comm_s;
    res.idle_s += g.idle_s;
  }
  const double n = static_cast<double>(summary.gpus.size());
  res.compute_s /= n;
  res.comm_s /= n;
  res.exposed_comm_s /= n;
  res.hidden_comm_s /= n;
  res.idle_s /= n;
  res.comm_share = res.step_s > 0 ? res.exposed_comm_s / res.step_s : 0;
  for (const auto& r : records) {
    const double d = tl.task_end_s[r.end] - tl.task_start_s[r.first_task];
    for (auto* m :
         {&res.by_group[r.group], &res.by_collective[std::string(coll::to_string(r.op))]}) {
      m->collectives += 1;
      m->time_s += d;
      m->bytes += r.size_bytes;
    }
  }
  for (std::size_t i : summary.bottlenecks) {
    const auto& ch = summary.channels[i];
    if (ch.channel >= machine.channel_count() || ch.saturated_s < 0.01 * res.step_s) continue;
    res.bottlenecks.push_back(fmt::format("{}: saturated {:.0f}% of the step", ch.name,
                                          100 * ch.saturated_s / std::max(res.step_s, 1e-30)));
    if (res.bottlenecks.size() == 3) break;
  }
  switch (sc.job.kind) {
    case JobKind::training:
    case JobKind::prefill:
    case JobKind::serving:  // simulate_job refuses it
      res.tokens_per_step = static_cast<double>(sc.job.global_batch) * sc.job.sequence_length;
      res.request_s = res.step_s;
      break;
    case JobKind::decode:
      res.tokens_per_step = sc.job.global_batch;
      res.request_s = res.step_s * sc.job.decode_tokens;
      res.notes.push_back(
          fmt::format("decode: one token simulated at the average context ({} + {}/2 "
                      "tokens) and repeated {} times",
                      sc.job.sequence_length, sc.job.decode_tokens, sc.job.decode_tokens));
      break;
  }
  res.tokens_per_s = res.step_s > 0 ? res.tokens_per_step / res.step_s : 0;
}

}  // namespace linksim::work
