#include "sim/work/plan_check.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "sim/work/memory.hpp"
#include "sim/work/replica_folding.hpp"
#include "sim/work/stage_layers.hpp"

namespace linksim::work {
namespace {

std::optional<PlanProblem> finetune_problem(const ModelSpec& model, const Job& job) {
  if (!job.finetune.adapters()) return std::nullopt;
  if (model.is_plain()) {
    return PlanProblem{"/job/finetune",
                       fmt::format("LoRA adapters need an architecture model; {} gives only a "
                                   "parameter count",
                                   model.name)};
  }
  const auto& targets = job.finetune.target_modules;
  const auto gate = std::find(targets.begin(), targets.end(), "gate_proj");
  if (!model.gated_ffn && gate != targets.end()) {
    return PlanProblem{fmt::format("/job/finetune/target_modules/{}", gate - targets.begin()),
                       fmt::format("{} has a GPT-style FFN without gate_proj; expected one of "
                                   "q_proj, k_proj, v_proj, o_proj, up_proj, down_proj",
                                   model.name)};
  }
  return std::nullopt;
}

// Interleaved 1F1B (plan.virtual_stages): what Megatron-LM requires of it (its
// forward_backward_pipelining_with_interleaving and the layer split of its virtual pipeline).
std::optional<PlanProblem> interleaving_problem(const ModelSpec& model, const Job& job,
                                                const ParallelPlan& p) {
  const int v = p.virtual_stages;
  if (v == 1) return std::nullopt;
  const auto problem = [](std::string message) {
    return PlanProblem{"/plan/virtual_stages", std::move(message)};
  };
  if (job.kind != JobKind::training) {
    return problem(fmt::format(
        "virtual_stages {} interleaves the 1F1B schedule of a training job; a {} job runs "
        "forwards only: expected 1",
        v, to_string(job.kind)));
  }
  if (p.pipeline < 2) {
    return problem(
        fmt::format("virtual_stages {} needs pipeline parallelism (pipeline >= 2); pipeline is {}: "
                    "expected 1, or a pipeline of 2 or more stages",
                    v, p.pipeline));
  }
  if (p.first_stage_layers > 0 || p.last_stage_layers > 0) {
    for (int layers : stage_layers(model, p)) {
      if (layers % v != 0) {
        return problem(
            fmt::format("virtual_stages {} does not divide a stage's {} layers (first "
                        "and last stages of their own); expected a divisor of every "
                        "stage's layers",
                        v, layers));
      }
    }
    return std::nullopt;
  }
  if (model.layers % p.pipeline != 0) {
    return problem(fmt::format(
        "virtual_stages {}: {}'s {} layers do not split evenly over pipeline {}; expected "
        "pipeline to divide the layers when the stages are interleaved",
        v, model.name, model.layers, p.pipeline));
  }
  const int per_stage = model.layers / p.pipeline;
  if (per_stage % v != 0) {
    return problem(fmt::format(
        "virtual_stages {} does not divide the {} layers per stage ({} layers over pipeline "
        "{}); expected a divisor of {}",
        v, per_stage, model.layers, p.pipeline, per_stage));
  }
  if (p.micro_batches % p.pipeline != 0) {
    return PlanProblem{
        "/plan/micro_batches",
        fmt::format("{} micro-batches under the interleaved schedule (virtual_stages {}) with "
                    "pipeline {}: Megatron-LM runs them in groups of pipeline size; expected a "
                    "multiple of {}",
                    p.micro_batches, v, p.pipeline, p.pipeline)};
  }
  return std::nullopt;
}

// Context parallelism as Megatron-LM runs it: the sequence splits evenly over the CP group
// (into 2 x context chunks for its causal load balance), attention is Transformer Engine's
// fused ring attention, and only training or prefill has a sequence to split.
std::optional<PlanProblem> context_problem(const topo::Topology& machine, const ModelSpec& model,
                                           const Job& job, const ParallelPlan& p) {
  if (p.context < 2) return std::nullopt;
  const auto problem = [](std::string message) {
    return PlanProblem{"/plan/context", std::move(message)};
  };
  if (job.kind != JobKind::training && job.kind != JobKind::prefill) {
    return problem(
        fmt::format("context parallelism splits a training or prefill sequence; a {} "
                    "job has none to split: expected context 1",
                    to_string(job.kind)));
  }
  if (job.sequence_length % (2 * p.context) != 0) {
    return problem(
        fmt::format("context {} does not split the sequence of {} tokens into 2 x {} "
                    "equal chunks (Megatron-LM's load-balanced split); expected a "
                    "sequence length divisible by {}",
                    p.context, job.sequence_length, p.context, 2 * p.context));
  }
  if (p.expert > 1) {
    return problem(
        "context and expert parallelism together are not modelled; expected "
        "context 1 or expert 1");
  }
  const auto gpus = machine.nodes_of(topo::NodeKind::gpu);
  if (model.is_plain() || gpus.empty() ||
      !uses_flash_attention(model, p, *machine.node(gpus.front()).gpu)) {
    return problem(fmt::format(
        "context parallelism runs as fused ring attention, which {} on {} "
        "does not have here (an architecture model, FlashAttention-style "
        "attention); expected context 1",
        model.name, gpus.empty() ? machine.name : machine.node(gpus.front()).gpu->name));
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> tensor_spans_nodes_warning(const topo::Topology& machine,
                                                      const ParallelPlan& p) {
  if (!machine.is_cluster() || p.tensor <= machine.cluster->gpus_per_host) return std::nullopt;
  return fmt::format(
      "unusual: TP {} spans nodes of {} GPUs; its all-reduces cross the network every layer",
      p.tensor, machine.cluster->gpus_per_host);
}

std::optional<PlanProblem> plan_problem(const topo::Topology& machine, const ModelSpec& model,
                                        const Job& job, const ParallelPlan& p) {
  const auto gpus = static_cast<int>(machine.count(topo::NodeKind::gpu));
  if (p.gpus() > gpus) {
    return PlanProblem{
        "/plan",
        fmt::format("the plan uses data {} x {}tensor {} x pipeline {} = {} GPUs but {} "
                    "has {}; expected the degrees to multiply to at most {} (or run "
                    "it on more nodes)",
                    p.data, p.context > 1 ? fmt::format("context {} x ", p.context) : "", p.tensor,
                    p.pipeline, p.gpus(), machine.name, gpus, gpus),
        true};
  }
  // A tensor group wider than a node runs, its collectives over the network (the placement
  // seam lowers them as NCCL does across nodes); tensor_spans_nodes_warning says it is unusual.
  if (p.pipeline > model.layers) {
    return PlanProblem{"/plan/pipeline",
                       fmt::format("{} pipeline stages for {} layers", p.pipeline, model.layers)};
  }
  if (auto problem = stage_layers_problem(model, p)) return problem;
  if (auto problem = interleaving_problem(model, job, p)) return problem;
  if (model.heads > 0 && model.heads % p.tensor != 0) {
    return PlanProblem{"/plan/tensor",
                       fmt::format("tensor parallelism {} does not divide {}'s {} heads", p.tensor,
                                   model.name, model.heads)};
  }
  if (p.expert > 1 &&
      (!model.is_moe() || p.data % p.expert != 0 || model.experts % p.expert != 0)) {
    return PlanProblem{"/plan/expert",
                       fmt::format("expert parallelism {} needs an MoE model whose experts and "
                                   "data-parallel degree it divides",
                                   p.expert)};
  }
  if (auto problem = context_problem(machine, model, job, p)) return problem;
  if (p.shard_group > 0) {
    const auto problem = [](std::string message) {
      return PlanProblem{"/plan/shard_group", std::move(message)};
    };
    if (p.zero_stage < 1) {
      return problem(fmt::format(
          "hybrid sharding over groups of {} needs ZeRO (zero_stage 1 to 3); zero_stage is 0",
          p.shard_group));
    }
    if (p.dp_ranks() % p.shard_group != 0) {
      return problem(fmt::format(
          "shard_group {} does not divide the data-parallel {} {}; expected a divisor of {}",
          p.shard_group, p.context > 1 ? "x context ranks" : "degree", p.dp_ranks(), p.dp_ranks()));
    }
    if (p.expert > 1 && p.shard_group % p.expert != 0 && p.expert % p.shard_group != 0) {
      return problem(fmt::format(
          "shard_group {} and expert parallelism {}: expected one to divide the other, so that "
          "each expert's copies split evenly over the shard groups",
          p.shard_group, p.expert));
    }
  }
  const bool one_micro_batch = job.kind == JobKind::decode || job.kind == JobKind::serving;
  const int m = one_micro_batch ? 1 : p.micro_batches;
  if (job.global_batch % (p.data * m) != 0) {
    return PlanProblem{"/job/global_batch",
                       fmt::format("global batch {} does not split into data {} x micro-batches {}",
                                   job.global_batch, p.data, m)};
  }
  // Each GPU computes two halves per layer per micro-batch and pass: beyond the bound the graph
  // would take gigabytes and minutes. Identical data-parallel replicas are built once where the
  // hosts allow it (replica_folding.hpp), so the bound counts the replicas built. A 1F1B step's
  // shape is set long before that: its bubble, (stages - 1) / (micro-batches + stages - 1), is
  // under 0.1% at 1,000 micro-batches on 2 stages.
  const int replicas = replicas_to_build(machine, model, job, p);
  const double compute_tasks = step_compute_tasks(model, job, p, replicas);
  if (compute_tasks > kMaxJobComputeTasks) {
    const double passes = job.kind == JobKind::training ? 2 : 1;
    return PlanProblem{
        "/plan/micro_batches",
        fmt::format("{} micro-batches x {} layers x 2 halves x {} pass(es) x {} GPUs per stage "
                    "built would be {:.3g} compute tasks; linksim simulates at most {:.3g} per "
                    "step: expected at most {} micro-batches here",
                    m, model.layers, passes, p.tensor * replicas, compute_tasks,
                    kMaxJobComputeTasks,
                    static_cast<long long>(kMaxJobComputeTasks /
                                           (compute_tasks / static_cast<double>(m))))};
  }
  return finetune_problem(model, job);
}

}  // namespace linksim::work
