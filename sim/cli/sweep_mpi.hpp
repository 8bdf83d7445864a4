#pragma once
// `linksim sweep` under an MPI launcher (mpirun -np N, or Slurm's srun --mpi=pmix): the ranks
// share the points and rank 0 writes the output, the same bytes as one process writes.
//
// MPI is optional at build time (CMake finds it: LINKSIM_HAVE_MPI). It is started only when a
// launcher started this process, known from the environment the launcher sets, so that a plain
// `linksim sweep` (and every other command) never initialises MPI. A binary built without MPI
// refuses to run a sweep under a launcher rather than have every rank write the whole output.

#include <functional>
#include <string>
#include <vector>

namespace linksim::cli {

// Whether an MPI launcher started this process: OMPI_COMM_WORLD_SIZE (OpenMPI's mpirun and
// mpiexec), PMIX_RANK (srun --mpi=pmix, any PMIx launcher) or PMI_RANK (srun --mpi=pmi2,
// MPICH's hydra) is set.
bool launched_by_mpi();

// Runs `work(rank, ranks)` on every rank, between MPI_Init and MPI_Finalize. `work` returns the
// rows of the points rank_points(count, rank, ranks) gives it (sim/app/sweep_run.hpp), in that
// order, or throws. Rank 0 gathers every rank's rows (MPI_Gatherv of the serialised rows) and
// returns them in point order. When any rank threw, rank 0 rethrows the error of the first
// failing point in point order (an error before the points, such as a bad grid, comes first;
// ties go to the lowest rank): the error a one-process run reports. Every other rank then, and
// on success, throws CommandFailed with the run's exit code (0 on success, 2 for an InputError,
// 1 otherwise), so that it writes nothing and exits as rank 0 does. Throws InputError when this
// binary was built without MPI.
std::vector<std::string> gather_rows_over_ranks(
    const std::function<std::vector<std::string>(int rank, int ranks)>& work);

}  // namespace linksim::cli
