#pragma once
// NCCL's environment as a communicator reads it: topo/nccl_env_read.hpp's reader, named here for
// the collectives (a cluster file's nccl_env is checked by the same reader when it is loaded).

#include "sim/topo/nccl_env_read.hpp"

namespace linksim::coll {

using topo::nccl_environment_variables;
using topo::NcclEnvironment;
using topo::NcclPath;
using topo::read_nccl_environment;

}  // namespace linksim::coll
