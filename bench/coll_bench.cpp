// The nccl-tests sweep issue #4 asks to be fast: one operation on an 8-GPU machine at the 31
// sizes from 8 B to 8 GiB, every size tried with each algorithm and protocol NCCL would
// consider, as `linksim nccl-tests` does.
#include <benchmark/benchmark.h>

#include "sim/coll/sweep.hpp"
#include "sim/topo/loader.hpp"

namespace {

void BM_NcclTestsSweep(benchmark::State& state, const char* machine, linksim::coll::Op op) {
  const linksim::topo::Topology t = linksim::topo::load_topology(machine);
  linksim::coll::SweepSpec spec;
  spec.op = op;
  spec.min_bytes = 8;
  spec.max_bytes = 8.0 * 1024 * 1024 * 1024;
  spec.step_factor = 2;
  std::size_t rows = 0;
  for (auto _ : state) {
    // The communicator (routes, ring search) is part of what a user waits for.
    const linksim::coll::Communicator comm(t, t.nodes_of(linksim::topo::NodeKind::gpu));
    const auto result = linksim::coll::run_sweep(comm, spec);
    rows = result.size();
    benchmark::DoNotOptimize(result.back().outcome.time_s);
  }
  state.counters["sizes"] = static_cast<double>(rows);
}

BENCHMARK_CAPTURE(BM_NcclTestsSweep, dgx_a100_all_reduce, "dgx-a100", linksim::coll::Op::all_reduce)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_NcclTestsSweep, dgx_h100_all_reduce, "dgx-h100", linksim::coll::Op::all_reduce)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_NcclTestsSweep, rtx4090_8x_all_gather, "rtx4090-8x",
                  linksim::coll::Op::all_gather)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_NcclTestsSweep, seed_mesh_alltoall, "seed-dgx-a100-mesh",
                  linksim::coll::Op::alltoall)
    ->Unit(benchmark::kMillisecond);

}  // namespace
