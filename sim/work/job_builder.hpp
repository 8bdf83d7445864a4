#pragma once
// A job as one task graph on the engine (internal to simulate_job, sim/work/job_sim.hpp).
//
// Training: per pipeline stage its micro-batches in 1F1B order (pipeline_schedule.hpp); per
// layer an attention half and an MLP half, each timed by the roofline (layer_roofline.hpp) and
// followed by a Megatron tensor-parallel all-reduce (or a reduce-scatter + all-gather with
// sequence parallelism); activations and their gradients sent between stages; MoE all-to-all
// around the experts; ZeRO-3 weight all-gathers (one layer ahead with plan.prefetch, so that
// they run beside the previous layer's compute) and gradient reduce-scatters per layer;
// otherwise DDP gradient buckets all-reduced (reduce-scattered for ZeRO-1/2) as the last
// micro-batch's backward produces them, overlapped with the rest of the backward; then the
// optimizer step.
// Inference: prefill is one forward pass of the prompt; decode is one token's forward pass
// (context at its average length).
//
// The member functions live by concept: job_builder.cpp (the schedule, compute, tensor and
// expert parallelism, stage sends), job_builder_data_parallel.cpp (gradient buckets, ZeRO,
// the optimizer step), job_builder_offload.cpp (activation and optimizer offload).

#include <map>
#include <memory>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "sim/coll/collective.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/topo/topology.hpp"
#include "sim/work/comm_record.hpp"
#include "sim/work/layer_roofline.hpp"
#include "sim/work/model.hpp"
#include "sim/work/placement.hpp"
#include "sim/work/rank_layout.hpp"
#include "sim/work/scenario.hpp"

namespace linksim::work {

class JobBuilder {
 public:
  // All references outlive this. `leave_out_planes`: build the job on one plane of each set of
  // identical planes (job_planes.hpp); build() then throws PlanesDoNotHold where some of its
  // traffic cannot leave them out.
  JobBuilder(const topo::Topology& machine, const ModelSpec& model, const Scenario& scenario,
             bool leave_out_planes = false);

  // Adds the whole step to sim(). Call once.
  void build();

  std::shared_ptr<engine::Simulation> sim() const { return placement_.shared_simulation(); }
  const std::vector<CommRecord>& records() const { return records_; }
  // Every compute task and the rank it runs on, in creation order.
  const std::vector<std::pair<engine::TaskId, int>>& compute_tasks() const {
    return compute_tasks_;
  }
  // The most channels any of the job's collectives runs.
  int max_channels() const { return max_channels_; }
  // The planes the graph leaves out, or nullptr when it has every plane.
  const coll::PlaneCopies* planes() const { return placement_.planes(); }

 private:
  using TaskId = engine::TaskId;
  // ready[d][t]: what the GPU of replica d and TP rank t waits for before its next compute.
  using Ready = std::vector<std::vector<std::vector<TaskId>>>;

  int gpu_index(int rank) const;
  TaskId compute(int rank, double seconds, std::vector<TaskId> deps);
  TaskId collective(const std::string& group, const std::vector<int>& ranks, coll::Op op,
                    double size, const std::vector<TaskId>& deps);

  // job_builder.cpp: the schedule's ops, layers, tensor and expert parallelism, stage sends.
  void forward(int s, int mb);
  void backward(int s, int mb, bool last_micro_batch);
  void layer_half(int s, bool backward, bool mlp, Ready& ready);
  void exchange_experts(int s, Ready& ready);
  Ready ready_from_stage_input(int s, int mb, bool backward);
  TaskId send(int a, int b, double bytes, TaskId dep);
  std::vector<TaskId> flatten_ends(int s, const Ready& ready) const;

  // job_builder_data_parallel.cpp: ZeRO weight gathers, gradient buckets, the optimizer step.
  std::vector<TaskId> gather_layer_weights(int s, const Ready& after);
  void gather_weights(int s, Ready& ready, std::vector<TaskId>& prefetched, bool next_layer);
  void reduce_gradients(int s, double bytes, coll::Op op);
  void optimizer_step();

  // job_builder_offload.cpp: copies to and from host memory.
  void store_activations(int s, int mb, int layer);
  void fetch_activations(int s, int mb, int layer, Ready& ready);
  TaskId host_copy(int r, bool to_host, double bytes, const std::vector<TaskId>& deps);
  double host_memory_bandwidth_Bps(int r);

  const topo::Topology& machine_;
  const ModelSpec& model_;
  const Scenario& sc_;
  RankLayout layout_;
  std::vector<topo::NodeId> gpus_;
  Placement placement_;
  std::vector<std::optional<TaskId>> last_;  // per rank: its last compute (or host step)
  const topo::GpuModel* gpu_ = nullptr;
  LayerRoofline roofline_;
  std::map<std::tuple<int, int, int>, TaskId> stored_;  // (rank, micro-batch, layer) -> copy
  std::map<int, TaskId> last_fetch_;
  std::vector<int> layers_;                                // per stage
  std::vector<std::vector<std::vector<TaskId>>> fwd_out_;  // [stage][micro-batch]: ends by GPU
  std::vector<std::vector<std::vector<TaskId>>> bwd_out_;
  std::map<int, std::vector<TaskId>> grad_syncs_;  // per rank: the syncs its step waits for
  std::vector<CommRecord> records_;
  std::vector<std::pair<TaskId, int>> compute_tasks_;
  int max_channels_ = 0;
};

}  // namespace linksim::work
