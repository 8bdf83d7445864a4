// linksim_bench: the engine at scale. Each case reports wall time per iteration (the whole
// build + run), flow events (starts + ends) per second, the predicted makespan, and the
// process's peak resident memory so far (getrusage maxrss; run one case per process for a
// per-case figure).
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <random>

#include "bench/cluster.hpp"
#include "bench/peer_fat_tree.hpp"
#include "sim/engine/simulation.hpp"

namespace linksim::bench {
namespace {

using engine::PathShare;
using engine::Simulation;
using engine::TaskId;

double peak_rss_MB() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // Linux: kilobytes
}

void report(benchmark::State& state, const engine::Timeline& tl) {
  const auto events = static_cast<double>(tl.flow_starts + tl.flow_ends);
  state.counters["flow_events"] = events;
  state.counters["flow_events_per_s"] =
      benchmark::Counter(events, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["makespan_s"] = tl.makespan_s;
  state.counters["peak_rss_MB"] = peak_rss_MB();
}

engine::RunOptions options_for(benchmark::State& state) {
  engine::RunOptions o;
  // Aggregates only, as the peer keeps (its comms record no times): the makespan and counters.
  o.record_intervals = false;
  o.record_task_times = false;
  o.reuse_isolated_groups = state.range(1) != 0;
  return o;
}

// (a) Every ordered GPU pair of one 8-GPU NVSwitch node, one transfer at a time, at 31 sizes
// from 8 B to 8 GiB (doubling): 56 x 31 = 1736 transfers in a chain.
void BM_AllPairs8Gpu(benchmark::State& state) {
  const Cluster cluster(8);
  engine::Timeline tl;
  for (auto _ : state) {
    Simulation sim(cluster.capacity_Bps, 8);
    std::vector<TaskId> prev;
    for (int k = 0; k < 31; ++k) {
      const double bytes = 8.0 * static_cast<double>(1ull << k);
      for (int s = 0; s < 8; ++s) {
        for (int d = 0; d < 8; ++d) {
          if (s == d) continue;
          const auto p = sim.add_path(cluster.path(s, d), cluster.latency_s(s, d));
          prev = {sim.add_transfer(bytes, std::vector<PathShare>{{p, 1.0}}, s, d, prev)};
        }
      }
    }
    tl = sim.run(options_for(state));
    benchmark::DoNotOptimize(tl.makespan_s);
  }
  report(state, tl);
}
BENCHMARK(BM_AllPairs8Gpu)->Args({8, 0})->Args({8, 1})->Unit(benchmark::kMillisecond);

// (b) Ring all-reduce of 1 GB as a plain task graph: 2(N-1) steps, each N concurrent transfers
// of 1 GB / N (GPU i -> i+1), a barrier after each step.
void BM_RingAllReduce(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const Cluster cluster(n);
  const double chunk = 1e9 / n;
  engine::Timeline tl;
  for (auto _ : state) {
    Simulation sim(cluster.capacity_Bps, static_cast<std::size_t>(n));
    std::vector<engine::PathId> paths;
    for (int i = 0; i < n; ++i) {
      paths.push_back(
          sim.add_path(cluster.path(i, (i + 1) % n), cluster.latency_s(i, (i + 1) % n)));
    }
    const std::size_t steps = 2 * (static_cast<std::size_t>(n) - 1);
    const std::size_t transfers = steps * static_cast<std::size_t>(n);
    sim.reserve(transfers + steps + 1, 2 * transfers);
    TaskId barrier = sim.add_barrier({});
    std::vector<TaskId> step(static_cast<std::size_t>(n));
    for (std::size_t s = 0; s < steps; ++s) {
      for (int i = 0; i < n; ++i) {
        const PathShare share{paths[static_cast<std::size_t>(i)], 1.0};
        step[static_cast<std::size_t>(i)] =
            sim.add_transfer(chunk, std::span(&share, 1), i, (i + 1) % n, std::span(&barrier, 1));
      }
      barrier = sim.add_barrier(step);
    }
    tl = sim.run(options_for(state));
    benchmark::DoNotOptimize(tl.makespan_s);
  }
  report(state, tl);
}
BENCHMARK(BM_RingAllReduce)
    ->Args({64, 0})
    ->Args({64, 1})
    ->Args({512, 0})
    ->Args({512, 1})
    ->Args({4096, 1})
    ->Args({4096, 0})
    ->Unit(benchmark::kSecond)
    ->Iterations(1);

// (b') The SimGrid peer's run (../shared/peers/simgrid/, --platform=fattree): ring all-reduce of
// 2^30 B on N GPUs of its fat-tree (bench/peer_fat_tree.hpp), 2(N-1) steps of N transfers of
// 2^30 / N B, a barrier after each, or only the first `steps` of them (the peer's --steps).
// Third argument: steps, 0 for all.
void BM_RingAllReducePeer(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const PeerFatTree platform(n);
  const double chunk = 1073741824.0 / n;
  const std::size_t all_steps = 2 * (static_cast<std::size_t>(n) - 1);
  const std::size_t steps = state.range(2) > 0
                                ? std::min(all_steps, static_cast<std::size_t>(state.range(2)))
                                : all_steps;
  engine::Timeline tl;
  for (auto _ : state) {
    Simulation sim(platform.capacity_Bps, static_cast<std::size_t>(n));
    std::vector<engine::PathId> paths;
    for (int i = 0; i < n; ++i) {
      paths.push_back(
          sim.add_path(platform.path(i, (i + 1) % n), platform.latency_s(i, (i + 1) % n)));
    }
    const std::size_t transfers = steps * static_cast<std::size_t>(n);
    sim.reserve(transfers + steps + 1, 2 * transfers);
    TaskId barrier = sim.add_barrier({});
    std::vector<TaskId> step(static_cast<std::size_t>(n));
    for (std::size_t s = 0; s < steps; ++s) {
      for (int i = 0; i < n; ++i) {
        const PathShare share{paths[static_cast<std::size_t>(i)], 1.0};
        step[static_cast<std::size_t>(i)] =
            sim.add_transfer(chunk, std::span(&share, 1), i, (i + 1) % n, std::span(&barrier, 1));
      }
      barrier = sim.add_barrier(step);
    }
    tl = sim.run(options_for(state));
    benchmark::DoNotOptimize(tl.makespan_s);
  }
  report(state, tl);
}
BENCHMARK(BM_RingAllReducePeer)
    ->Args({64, 1, 0})
    ->Args({512, 0, 0})
    ->Args({512, 1, 0})
    ->Args({4096, 1, 512})
    ->Args({4096, 0, 512})
    ->Args({4096, 1, 0})
    ->Args({4096, 0, 0})
    ->Args({16384, 1, 128})
    ->Unit(benchmark::kSecond)
    ->Iterations(1);

// (c) 16,384 concurrent flows on the 4096-GPU fat-tree: every GPU sends 4 transfers of 64 MB
// to GPUs in other nodes picked at random (seeded), all at once.
void BM_ConcurrentFlows16k(benchmark::State& state) {
  const int n = 4096;
  const Cluster cluster(n);
  engine::Timeline tl;
  for (auto _ : state) {
    Simulation sim(cluster.capacity_Bps, n);
    std::mt19937 rng(1);
    for (int i = 0; i < n; ++i) {
      for (int k = 0; k < 4; ++k) {
        int d = static_cast<int>(rng() % n);
        while (d / Cluster::kGpusPerNode == i / Cluster::kGpusPerNode) {
          d = static_cast<int>(rng() % n);
        }
        const auto p = sim.add_path(cluster.path(i, d), cluster.latency_s(i, d));
        sim.add_transfer(64e6, std::vector<PathShare>{{p, 1.0}}, i, d, {});
      }
    }
    tl = sim.run(options_for(state));
    benchmark::DoNotOptimize(tl.makespan_s);
  }
  report(state, tl);
}
BENCHMARK(BM_ConcurrentFlows16k)
    ->Args({4096, 0})
    ->Args({4096, 1})
    ->Unit(benchmark::kSecond)
    ->Iterations(1);

// (d) The flows of (c), each starting after its own delay, uniform in [0, 10 ms) (seeded): the
// sharing changes on arrivals as well as departures, one or a few flows at a time.
void BM_StaggeredFlows16k(benchmark::State& state) {
  const int n = 4096;
  const Cluster cluster(n);
  engine::Timeline tl;
  for (auto _ : state) {
    Simulation sim(cluster.capacity_Bps, n);
    std::mt19937 rng(1);
    std::uniform_real_distribution<double> start_s(0, 10e-3);
    for (int i = 0; i < n; ++i) {
      for (int k = 0; k < 4; ++k) {
        int d = static_cast<int>(rng() % n);
        while (d / Cluster::kGpusPerNode == i / Cluster::kGpusPerNode) {
          d = static_cast<int>(rng() % n);
        }
        const auto p = sim.add_path(cluster.path(i, d), cluster.latency_s(i, d));
        const TaskId wait = sim.add_delay(start_s(rng), {});
        sim.add_transfer(64e6, std::vector<PathShare>{{p, 1.0}}, i, d, std::span(&wait, 1));
      }
    }
    tl = sim.run(options_for(state));
    benchmark::DoNotOptimize(tl.makespan_s);
  }
  report(state, tl);
}
BENCHMARK(BM_StaggeredFlows16k)->Args({4096, 0})->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace
}  // namespace linksim::bench

BENCHMARK_MAIN();
