#include "sim/report/chrome_trace_flows.hpp"

#include <algorithm>
#include <limits>

namespace linksim::report {

int home_gpu(const engine::Simulation& sim, engine::TaskId task) {
  switch (sim.kind(task)) {
    case engine::TaskKind::compute:
      return sim.gpu(task);
    case engine::TaskKind::transfer:
      return sim.gpu(task) != engine::kNoGpu ? sim.gpu(task) : sim.peer_gpu(task);
    case engine::TaskKind::delay:
    case engine::TaskKind::barrier:
      return engine::kNoGpu;
  }
  return engine::kNoGpu;
}

std::vector<std::pair<engine::TaskId, engine::TaskId>> cross_gpu_dependencies(
    const engine::Simulation& sim, const engine::Timeline& tl) {
  constexpr engine::TaskId kNone = std::numeric_limits<engine::TaskId>::max();
  const std::size_t n = sim.task_count();
  // Per task without a home: the homed task behind it that ended last (kNone: none). Tasks
  // depend only on earlier ones, so one pass in id order fills it.
  std::vector<engine::TaskId> behind(n, kNone);
  std::vector<int> home(n);
  const auto released_by = [&](engine::TaskId d) {
    return home[d] != engine::kNoGpu ? d : behind[d];
  };
  for (engine::TaskId t = 0; t < n; ++t) {
    home[t] = home_gpu(sim, t);
    if (home[t] != engine::kNoGpu) continue;
    for (engine::TaskId d : sim.deps(t)) {
      const engine::TaskId r = released_by(d);
      if (r == kNone) continue;
      if (behind[t] == kNone || tl.task_end_s[r] > tl.task_end_s[behind[t]] ||
          (tl.task_end_s[r] == tl.task_end_s[behind[t]] && r > behind[t])) {
        behind[t] = r;
      }
    }
  }
  std::vector<std::pair<engine::TaskId, engine::TaskId>> edges;
  std::vector<engine::TaskId> from;
  for (engine::TaskId t = 0; t < n; ++t) {
    if (home[t] == engine::kNoGpu) continue;
    from.clear();
    for (engine::TaskId d : sim.deps(t)) {
      const engine::TaskId r = released_by(d);
      if (r != kNone && home[r] != home[t]) from.push_back(r);
    }
    std::sort(from.begin(), from.end());
    from.erase(std::unique(from.begin(), from.end()), from.end());
    for (engine::TaskId f : from)
      edges.emplace_back(f, t);
  }
  return edges;
}

}  // namespace linksim::report
