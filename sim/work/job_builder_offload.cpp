// JobBuilder (job_builder.hpp): host memory. Activation offload (each layer's saved
// activations down after its forward, back before its backward) and ZeRO-Offload's copies,
// over the GPU's route to its CPU socket.
#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/work/job_builder.hpp"

namespace linksim::work {

// Activation offload: one layer's saved activations to host memory after its forward.
void JobBuilder::store_activations(int s, int mb, int layer) {
  const ParallelPlan& p = layout_.plan;
  for (int d = 0; d < replicas_; ++d) {
    for (int t = 0; t < p.tensor; ++t) {
      const int r = layout_.rank(s, d, t);
      stored_[{r, mb, layer}] = host_copy(r, true, roofline_.offload_bytes_per_layer(),
                                          {*last_[static_cast<std::size_t>(r)]});
    }
  }
}

// ... and back before its backward, after the previous copy back (one copy engine each way,
// so the copies run one after another, ahead of the compute that needs them).
void JobBuilder::fetch_activations(int s, int mb, int layer, Ready& ready) {
  const ParallelPlan& p = layout_.plan;
  for (int d = 0; d < replicas_; ++d) {
    for (int t = 0; t < p.tensor; ++t) {
      const int r = layout_.rank(s, d, t);
      std::vector<TaskId> deps = {stored_.at({r, mb, layer})};
      if (auto it = last_fetch_.find(r); it != last_fetch_.end()) deps.push_back(it->second);
      const TaskId x = host_copy(r, false, roofline_.offload_bytes_per_layer(), deps);
      last_fetch_[r] = x;
      ready[static_cast<std::size_t>(d)][static_cast<std::size_t>(t)].push_back(x);
    }
  }
}

// A copy between rank r's GPU and its CPU socket's memory, recorded as "offload"
// communication of that GPU.
engine::TaskId JobBuilder::host_copy(int r, bool to_host, double bytes,
                                     const std::vector<TaskId>& deps) {
  const topo::NodeId g = gpus_[static_cast<std::size_t>(r)];
  const auto cpu = placement_.router().host_socket(g);
  if (!cpu) {
    throw InputError(sc_.file, "/plan",
                     fmt::format("offloading needs a CPU socket reachable from {}; {} has none",
                                 machine_.node(g).id, machine_.name));
  }
  const Work w{.kind = WorkKind::copy,
               .amount = bytes,
               .src = to_host ? g : *cpu,
               .dst = to_host ? *cpu : g};
  const Placed x = placement_.add(w, deps);
  records_.push_back({"offload", coll::Op::sendrecv, x.first, x.end, bytes, {gpu_index(r)}});
  return x.end;
}

// Memory bandwidth the CPU optimizer step of rank r gets: its socket's, shared by the GPUs
// attached to it (100 GB/s per socket assumed when the machine file gives none).
double JobBuilder::host_memory_bandwidth_Bps(int r) {
  const topo::Router& router = placement_.router();
  const auto cpu = router.host_socket(gpus_[static_cast<std::size_t>(r)]);
  double bw = cpu ? machine_.node(*cpu).cpu->memory_bandwidth_Bps : 0;
  if (bw <= 0) bw = 100e9;
  int sharing = 0;
  for (auto g : gpus_)
    sharing += router.host_socket(g) == cpu ? 1 : 0;
  return bw / std::max(sharing, 1);
}

}  // namespace linksim::work
