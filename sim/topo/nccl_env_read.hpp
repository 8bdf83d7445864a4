#pragma once
// The NCCL environment variables that change how a communicator moves data, read as NCCL
// v2.30.7 reads them (../shared/reference/nccl-model.md), for one process's communicators:
// - NCCL_P2P_DISABLE / NCCL_P2P_LEVEL (src/graph/paths.cc ncclGetLevel, ncclTopoCheckP2p): the
//   P2P transport only between GPUs whose NCCL path type is at most the level;
// - NCCL_SHM_DISABLE (src/transport/shm.cc shmCanConnect): no SHM transport;
// - NCCL_NET_GDR_LEVEL (paths.cc ncclTopoCheckGdr): GPUDirect RDMA only up to that GPU-NIC path;
// - NCCL_NTHREADS (src/graph/tuning.cc getNthreads): threads per channel for LL and Simple;
// - NCCL_BUFFSIZE (src/init.cc computeBuffSizes): the Simple buffer of each connection;
// - OFI_NCCL_TUNER_TYPE, aws-ofi-nccl's own (src/tuner/nccl_ofi_tuner.cpp): "Internal" leaves
//   every pick to NCCL's model (no region tuner).
// Unset variables leave linksim's defaults. NCCL_ALGO / NCCL_PROTO are coll/nccl_selection.hpp's.
// Read here, below the collectives, so that a cluster file's nccl_env (cluster_loader.cpp) is
// checked by the same rules as the environment when it is loaded.

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/topo/fabric.hpp"

namespace linksim::topo {

// NCCL's path types (src/include/graph.h PATH_*, names topo.cc topoPathTypeStr), best first; the
// integers are NCCL's.
enum class NcclPath { loc = 0, nvl, nvb, c2c, pix, pxb, p2c, pxn, phb, sys };
std::string_view to_string(NcclPath p);  // "LOC", "NVL", ... "SYS"

struct NcclEnvironment {
  // NCCL_P2P_DISABLE=1 (LOC) or NCCL_P2P_LEVEL: the farthest path type the P2P transport spans;
  // nullopt leaves linksim's default (P2P wherever CUDA allows it).
  std::optional<NcclPath> p2p_level;
  // NCCL_SHM_DISABLE=1.
  bool shm_disable = false;
  // NCCL_NET_GDR_LEVEL, as the cluster's gpudirect_rdma levels; nullopt leaves the cluster's.
  std::optional<GdrLevel> net_gdr_level;
  // NCCL_NTHREADS after getNthreads' clamps: LL's and Simple's threads per channel.
  std::optional<int> nthreads;
  // NCCL_BUFFSIZE, bytes: the Simple buffer, NCCL_STEPS slots of it.
  std::optional<double> buffsize_bytes;
  // OFI_NCCL_TUNER_TYPE=Internal (any case): aws-ofi-nccl's tuner stands aside.
  bool aws_ofi_tuner_off = false;
  bool empty() const {
    return !p2p_level && !shm_disable && !net_gdr_level && !nthreads && !buffsize_bytes &&
           !aws_ofi_tuner_off;
  }
};

// The variables `value` gives ("" for unset), as NCCL reads them (`value` is asked only for the
// names nccl_environment_variables lists). A value NCCL would refuse or
// that linksim cannot read as NCCL does throws InputError naming the variable and what it takes
// (the run stops with exit 2); a value NCCL clamps is clamped, with a note appended to `notes`
// saying to what ("NCCL_NTHREADS=1000 is above 512; NCCL uses 512").
NcclEnvironment read_nccl_environment(const std::function<std::string(std::string_view)>& value,
                                      std::vector<std::string>& notes);

// The variables this file reads, for the list of those linksim models.
const std::vector<std::string_view>& nccl_environment_variables();

}  // namespace linksim::topo
