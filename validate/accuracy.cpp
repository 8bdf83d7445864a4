#include "validate/accuracy.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "sim/coll/collective_sim.hpp"
#include "sim/coll/host_launch_cost.hpp"
#include "sim/coll/sweep.hpp"
#include "sim/topo/loader.hpp"

namespace linksim::validate {
namespace {

// NCCL 2.18.5, as both Azure guide result files' own tables give it.
constexpr int kAzureGuideNccl = 21805;

// nccl-tests prints busbw with two decimals: below 0.1 GB/s the rounding alone is >5%.
constexpr double kMinComparable_Bps = 0.1e9;

struct Definition {
  std::string name;
  std::string machine_prefix;  // measurements.json "machine" starts with this
  std::string topology;
  std::string note;
  // NCCL_ALGO as the run set it (the Azure guide runs each algorithm in turn).
  std::optional<coll::Algorithm> algorithm = std::nullopt;
  // How the run launched: one thread driving every GPU (-g N) for `iterations` (-n); 0 when
  // the source does not say (one process per GPU is then assumed: no launch pacing).
  int gpus_per_thread = 0;
  int iterations = 20;
  // The NCCL release the source ran, where it says (Request::nccl_version).
  int nccl_version = kModelledNcclVersion;
};

void summarise(AccuracySet& set) {
  std::vector<double> errors;
  for (const auto& r : set.rows) {
    if (r.counted) errors.push_back(std::fabs(r.error()));
  }
  if (errors.empty()) return;
  std::sort(errors.begin(), errors.end());
  const std::size_t n = errors.size();
  set.median_abs_error = n % 2 ? errors[n / 2] : (errors[n / 2 - 1] + errors[n / 2]) / 2;
  set.max_abs_error = errors.back();
}

AccuracyRow predict(const coll::Communicator& comm, coll::Op op, double size, double measured,
                    std::optional<coll::Algorithm> algorithm = std::nullopt,
                    int gpus_per_thread = 0, int iterations = 20,
                    int nccl_version = kModelledNcclVersion) {
  coll::Request r;
  r.op = op;
  r.size_bytes = size;
  r.algorithm = algorithm;
  r.nccl_version = nccl_version;
  coll::Outcome o = coll::simulate_collective(comm, r);
  if (gpus_per_thread > 0) {
    // Paced as nccl-tests times it, at the launch cost in force (the table's default here:
    // no shipped machine carries a fitted one).
    coll::LaunchPacing pacing;
    pacing.gpus_per_thread = gpus_per_thread;
    pacing.iterations = iterations;
    const coll::PacedTime paced =
        coll::pace_like_nccl_tests(o.time_s, coll::host_launch_per_gpu_s(comm.topology()), pacing);
    o.time_s = paced.time_s;
    o.host_bound = paced.host_bound;
    o.algbw_Bps = size / o.time_s;
    o.busbw_Bps = o.algbw_Bps * coll::busbw_factor(op, comm.size());
  }
  AccuracyRow row;
  row.op = op;
  row.size_bytes = size;
  row.measured_busbw_Bps = measured;
  row.predicted_busbw_Bps = o.busbw_Bps;
  row.choice = fmt::format("{}/{} x{}", coll::to_string(o.choice.algorithm),
                           coll::to_string(o.choice.protocol), o.choice.channels);
  if (o.data_channels > 0 && o.data_channels < o.choice.channels) {
    row.choice += fmt::format(" ({} with data)", o.data_channels);
  }
  row.counted = measured >= kMinComparable_Bps;
  return row;
}

}  // namespace

std::vector<AccuracySet> evaluate_accuracy(const std::vector<NcclTestsRecord>& records,
                                           const std::string& only_topology) {
  const auto wanted = [&](const std::string& topology) {
    return only_topology.empty() || topology == only_topology;
  };
  const std::vector<Definition> defs{
      {"A100 NVSwitch all_reduce sweep (Azure ND A100 v4, 8x A100-SXM4-80GB)", "Azure ND A100 v4",
       "dgx-a100",
       "Azure's host differs from the DGX A100 in CPUs and NICs, not in the NVSwitch fabric. The "
       "guide runs all_reduce_perf -g 8 -n 40 once per NCCL_ALGO (Tree, Ring, NVLS, NVLSTree; "
       "Benchmarks/NCCLBandwidth.py) and labels this column NVLS, which NCCL 2.18.5 cannot run on "
       "an A100 (no NVLS graph: every algorithm's bandwidth is 0, \"no algorithm/protocol "
       "available\"). Its 231.6 GB/s at 8 GiB rules out Tree (a chain's inner GPUs send the "
       "buffer twice: 2 x 231.6 / 1.75 = 264.7 GB/s, above the 259.8 GB/s a DGX A100 copy over "
       "all 12 NVLinks reaches), so the column is Ring's: the set runs NCCL_ALGO=Ring.",
       coll::Algorithm::ring, 8, 40, kAzureGuideNccl},
      {"2x RTX 2080 Ti, PCIe Gen3 behind one switch, P2P not supported", "2x RTX 2080 Ti",
       "rtx2080ti-2x", "Every nccl-tests run in the reference set, single process -g 2.",
       std::nullopt, 2, 20},
      {"H100 NVSwitch all_reduce sweep (Azure ND H100 v5, 8x H100 80GB HBM3)",
       "Azure ND H100 v5 (8x H100 80GB HBM3)", "azure-nd-h100-v5",
       "The VM's host side is the DGX H100's (azure-nd-h100-v5.json's notes); the NVSwitch fabric "
       "is the same. The guide's NVLS column: NCCL_ALGO=NVLS all_reduce_perf -g 8 -n 40, NCCL "
       "2.18.5 (the file's own table), which spreads NVLS over its channels by whole blocks "
       "(linksim nccl-tests --nccl-version 2.18.5).",
       coll::Algorithm::nvls, 8, 40, kAzureGuideNccl},
      {"2 nodes: 2x p3dn.24xlarge on EFA (16x V100)", "AWS p3dn.24xlarge x2", "aws-p3dn-x2",
       "Multi-node; EFA's NIC latency is fitted on these four EFA sweeps (see the table above)."},
      {"4 nodes: 4x p3dn.24xlarge on EFA (32x V100)", "AWS p3dn.24xlarge x4", "aws-p3dn-x4",
       "Multi-node; EFA's NIC latency is fitted on these four EFA sweeps (see the table above)."},
      {"8 nodes: 8x p3dn.24xlarge on EFA (64x V100)", "AWS p3dn.24xlarge x8", "aws-p3dn-x8",
       "Multi-node; EFA's NIC latency is fitted on these four EFA sweeps (see the table above)."},
      {"2 nodes: 2x p4de.24xlarge on EFA v1 (16x A100 80GB)", "AWS p4de.24xlarge x2", "aws-p4de-x2",
       "Multi-node; EFA's NIC latency is fitted on these four EFA sweeps (see the table above)."},
      {"2 nodes: 2x p5.48xlarge on EFA v2 (16x H100)", "AWS p5.48xlarge x2", "aws-p5-x2",
       "Multi-node; EFA v2's NIC latency is fitted on this sweep up to 8 KiB (see the table "
       "above). The README's Dockerfile defaults are now NCCL 2.27.7 and aws-ofi-nccl 1.16.3, "
       "but this output came into the README on 2024-04-19 (awsome-distributed-training "
       "88c2e71b), when they were NCCL 2.20.3 and aws-ofi-nccl 1.8.1: NCCL's own model picks "
       "either way (2.20.3 loads a tuner only when NCCL_TUNER_PLUGIN names one; v1.16.3's "
       "skips two nodes), and run as 2.20.3 every size predicts the same. The run is "
       "simulated as the modelled release."},
      {"1 node: P6-B200 (8x B200, NVLink 5), torch.distributed all_reduce_bench.py",
       "AWS P6-B200 (8x B200) x1", "aws-p6-b200.48xlarge",
       "Held out: nothing is fitted on it. all_reduce_bench.py times one all-reduce at a time "
       "(one process per GPU, no launch pacing), NCCL 2.27.7; simulated as the modelled release. "
       "It checks NVLS on Blackwell: 24 NVLS channels on one host (NCCL's nvls.cc) at the "
       "per-channel copy rate fitted on the H100 sweep."},
      {"4 nodes: 4x P6-B200 on EFA v4 (32x B200), torch.distributed all_reduce_bench.py",
       "AWS P6-B200 (8x B200) x4", "aws-p6-b200-x4",
       "Held out: nothing is fitted on it; EFA v4's NIC latency is EFA v2's. all_reduce_bench.py "
       "times each call after a barrier and averages the ranks' algbw, so late ranks' short "
       "times pull the small sizes' figures about; sizes below 0.1 GB/s are not counted."},
  };
  std::vector<AccuracySet> out;
  for (const auto& def : defs) {
    if (!wanted(def.topology)) continue;
    AccuracySet set;
    set.name = def.name;
    set.topology = def.topology;
    set.note = def.note;
    const topo::Topology machine = topo::load_topology(def.topology);
    set.topology_file = std::string(machine.is_cluster() ? "topologies/clusters/" : "topologies/") +
                        def.topology + ".json";
    const coll::Communicator comm(machine, machine.nodes_of(topo::NodeKind::gpu));
    for (const NcclTestsRecord& rec : records) {
      if (rec.machine.rfind(def.machine_prefix, 0) != 0) continue;
      set.source = rec.source_url;
      set.rows.push_back(predict(comm, rec.op, rec.size_bytes, rec.busbw_Bps, def.algorithm,
                                 def.gpus_per_thread, def.iterations, def.nccl_version));
    }
    summarise(set);
    out.push_back(std::move(set));
  }
  // NVIDIA's figures for 8x H100 (nccl-tests#212): statements, not a sweep. Both are peaks at
  // large sizes ("needs sizes >256MB"); 8 GiB is taken.
  if (wanted("dgx-h100")) {
    AccuracySet set;
    set.name = "8x H100 SXM (NVSwitch): NVIDIA's Ring and NVLS all_reduce figures";
    set.topology = "dgx-h100";
    set.topology_file = "topologies/dgx-h100.json";
    set.source = "https://github.com/NVIDIA/nccl-tests/issues/212";
    set.note = "Ring forced (NCCL_ALGO=RING) for the 370 GB/s figure; automatic choice for 480.";
    const topo::Topology machine = topo::load_topology("dgx-h100");
    const coll::Communicator comm(machine, machine.nodes_of(topo::NodeKind::gpu));
    const double size = 8.0 * 1024 * 1024 * 1024;
    set.rows.push_back(predict(comm, coll::Op::all_reduce, size, 370e9, coll::Algorithm::ring));
    set.rows.push_back(predict(comm, coll::Op::all_reduce, size, 480e9));
    summarise(set);
    out.push_back(std::move(set));
  }
  return out;
}

}  // namespace linksim::validate
