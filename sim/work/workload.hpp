#pragma once
// What a workload asks of a machine, in the machine's own names: the task vocabulary that a job
// (job_builder.hpp), a task graph (task_graph.hpp) and any other reader hand to placement
// (placement.hpp), the one step that turns them into an engine simulation. It holds no engine,
// JSON or file types, so that a reader depends on what it says, not on how it is simulated.
//
// Amounts are SI: seconds for compute and delay; bytes for send, copy and collective (a
// collective's size as nccl-tests counts it, coll::Request::size_bytes).

#include <cstdint>
#include <optional>
#include <vector>

#include "sim/coll/collective.hpp"

namespace linksim::work {

// A node of the machine (topo::NodeId): a GPU, CPU socket or NIC.
using MachineNode = std::uint32_t;

enum class WorkKind {
  compute,     // `gpu` busy for `amount` seconds
  send,        // `amount` bytes from GPU `src` to GPU `dst` as NCCL's point-to-point moves them
  copy,        // `amount` bytes from `src` to `dst` over the route, raw (DMA, host memory)
  collective,  // `collective` on its GPUs, `amount` bytes
  delay,       // `amount` seconds on no resource (a host-side step, a fixed wait)
  barrier,     // nothing: ends when its dependencies have
};

// A collective call on a group: its GPUs in rank order (the root of broadcast and reduce first),
// and what the caller fixed of the algorithm and protocol (unset: the planner's choice).
struct CollectiveWork {
  coll::Op op = coll::Op::all_reduce;
  std::vector<MachineNode> gpus;
  std::optional<coll::Algorithm> algorithm;
  std::optional<coll::Protocol> protocol;
};

// One piece of work. Which fields apply depends on `kind` (above).
struct Work {
  WorkKind kind = WorkKind::barrier;
  double amount = 0;
  MachineNode gpu = 0;
  MachineNode src = 0;
  MachineNode dst = 0;
  const CollectiveWork* collective = nullptr;  // kind collective; owned by the caller
};

// Which capacity a link offers a workload. `line`: the link's line rate, as the seed article's
// arithmetic counts (10 GB over 32 GB/s PCIe 4.0 x16 is 0.3125 s), for schedules whose bytes
// already include every overhead: a GPU-to-GPU send is then a raw copy too. `payload`: what the
// link carries after its encoding and packet headers (sim/topo/link_payload.hpp), as collectives,
// copies and NCCL's sends see it.
enum class LinkRates { line, payload };

}  // namespace linksim::work
