#pragma once
// A launcher pasted before an nccl-tests command, as a real run's log or script has it:
// `mpirun -np 16 -x NCCL_DEBUG=INFO --bind-to none ./build/all_reduce_perf -b 8 -e 8G`. linksim
// runs the command on a simulated machine, so it keeps the process count (as --np) and drops
// what only places processes on real hosts.

#include <optional>
#include <string>
#include <vector>

namespace linksim::app {

struct LaunchedCommand {
  std::optional<int> processes;    // the launcher's -np / -n; nullopt without a launcher
  std::vector<std::string> words;  // the nccl-tests command: binary, then its arguments
};

// Reads OpenMPI's and MPICH's mpirun / mpiexec (and orterun) when `words` starts with one; any
// other first word leaves `words` as they are. Options that place or configure processes
// (hosts, mapping, binding, -x, --mca, ...) are read and dropped. Throws InputError naming the
// option for one it does not know, for a launcher without -np, and for a bad count.
LaunchedCommand strip_mpi_launcher(const std::vector<std::string>& words);

}  // namespace linksim::app
