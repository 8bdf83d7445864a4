#include "sim/work/job_accounting.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string>

#include "sim/core/units.hpp"
#include "sim/engine/summary.hpp"
#include "sim/work/binding_links.hpp"

namespace linksim::work {

namespace {

// Labels made once per distinct key, however many tasks share them.
class LabelTable {
 public:
  explicit LabelTable(engine::Names& names) : names_(names) {}
  template <typename Make>
  std::uint32_t intern(const std::string& key, Make make) {
    auto [it, fresh] = index_.try_emplace(key, static_cast<std::uint32_t>(names_.labels.size()));
    if (fresh) names_.labels.push_back(make());
    return it->second;
  }

 private:
  engine::Names& names_;
  std::map<std::string, std::uint32_t> index_;
};

engine::TaskLabel record_label(const CommRecord& r) {
  engine::TaskLabel l;
  l.name = fmt::format("{} {}", r.group, coll::to_string(r.op));
  l.text = {{"group", r.group},
            {"operation", std::string(coll::to_string(r.op))},
            {"size", units::format_bytes(r.size_bytes)}};
  l.numbers = {{"size_bytes", r.size_bytes}, {"ranks", static_cast<double>(r.gpus.size())}};
  if (r.choice) {
    l.text.emplace_back("algorithm", std::string(coll::to_string(r.choice->algorithm)));
    l.text.emplace_back("protocol", std::string(coll::to_string(r.choice->protocol)));
    l.numbers.emplace_back("channels", r.choice->channels);
  }
  return l;
}

engine::TaskLabel compute_label(const ComputeLabel& c) {
  engine::TaskLabel l;
  l.name = to_string(c);
  l.text = {{"pass", c.backward ? "backward" : "forward"}};
  if (c.layer >= 0) l.numbers = {{"layer", c.layer}};
  return l;
}

}  // namespace

engine::Names job_names(const topo::Topology& machine, const engine::Simulation& sim,
                        const std::vector<CommRecord>& records,
                        const std::vector<std::pair<engine::TaskId, int>>& compute_tasks,
                        const std::vector<ComputeLabel>& compute_labels,
                        std::vector<std::string> gpu_ids, bool name_tasks) {
  engine::Names names;
  if (name_tasks) {
    names.task_labels.assign(sim.task_count(), engine::Names::kNoLabel);
    LabelTable table(names);
    for (const auto& r : records) {
      const std::string key = fmt::format(
          "r{}|{}|{}|{}|{}|{}|{}", r.group, coll::to_string(r.op), units::exact(r.size_bytes),
          r.gpus.size(), r.choice ? coll::to_string(r.choice->algorithm) : "",
          r.choice ? coll::to_string(r.choice->protocol) : "", r.choice ? r.choice->channels : 0);
      const std::uint32_t label = table.intern(key, [&] { return record_label(r); });
      for (engine::TaskId t = r.first_task; t <= r.end; ++t)
        names.task_labels[t] = label;
      names.ops.push_back({r.first_task, r.end, label, r.gpus});
    }
    for (std::size_t i = 0; i < compute_tasks.size() && i < compute_labels.size(); ++i) {
      const ComputeLabel& c = compute_labels[i];
      const std::string key = fmt::format("c{}|{}|{}", c.layer, static_cast<int>(c.op), c.backward);
      names.task_labels[compute_tasks[i].first] =
          table.intern(key, [&] { return compute_label(c); });
    }
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
                 const engine::Names& names, const std::vector<CommRecord>& records,
                 const std::vector<int>& counted_gpus) {
  const engine::Summary summary = engine::summarize(sim, tl, names, comm_ops(records));
  res.step_s = tl.makespan_s;
  std::vector<int> counted = counted_gpus;
  if (counted.empty()) {
    for (int g = 0; g < static_cast<int>(summary.gpus.size()); ++g)
      counted.push_back(g);
  }
  for (int i : counted) {
    const auto& g = summary.gpus[static_cast<std::size_t>(i)];
    res.compute_s += g.compute_s;
    res.comm_s += g.comm_s;
    res.exposed_comm_s += g.exposed_comm_s;
    res.hidden_comm_s += g.hidden_comm_s;
    res.idle_s += g.idle_s;
  }
  const double n = static_cast<double>(counted.size());
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
  res.bottlenecks = binding_links(machine, summary.channels, res.step_s);
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
