// A launcher pasted before an nccl-tests command (sim/app/mpi_launcher.hpp): the process count is
// kept, what places processes on real hosts is dropped, and anything unread is named.
#include "sim/app/mpi_launcher.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/core/error.hpp"
#include "tests/support/temp_files.hpp"
#include "tests/support/thrown_message.hpp"

namespace linksim::app {
namespace {

using Words = std::vector<std::string>;

TEST(MpiLauncher, WithoutALauncherTheWordsAreTheCommand) {
  const LaunchedCommand c = strip_mpi_launcher({"all_reduce_perf", "-b", "8"});
  EXPECT_FALSE(c.processes);
  EXPECT_EQ(c.words, (Words{"all_reduce_perf", "-b", "8"}));
}

TEST(MpiLauncher, OpenMpisPlacementOptionsAreDropped) {
  const LaunchedCommand c = strip_mpi_launcher(
      {"/opt/openmpi/bin/mpirun", "-np", "16", "-H", "a:8,b:8", "-x", "NCCL_DEBUG=INFO",
       "--bind-to", "none", "--mca", "btl", "^openib", "--allow-run-as-root", "--map-by=ppr:8:node",
       "./build/all_reduce_perf", "-b", "8", "-g", "1"});
  EXPECT_EQ(c.processes, 16);
  EXPECT_EQ(c.words, (Words{"./build/all_reduce_perf", "-b", "8", "-g", "1"}));
}

TEST(MpiLauncher, MpichsSpellingsToo) {
  const LaunchedCommand c = strip_mpi_launcher(
      {"mpiexec", "-n=4", "-ppn", "4", "-genv", "NCCL_DEBUG", "WARN", "all_gather_perf"});
  EXPECT_EQ(c.processes, 4);
  EXPECT_EQ(c.words, (Words{"all_gather_perf"}));
}

TEST(MpiLauncher, WhatCannotBeReadIsNamed) {
  EXPECT_EQ(testing::thrown_message<InputError>([] {
              strip_mpi_launcher({"mpirun", "-np", "2", "--weird", "all_reduce_perf"});
            }),
            "argument BINARY: mpirun: option \"--weird\" is not one linksim reads; or give "
            "linksim the processes with --np N and the nccl-tests command alone");
  EXPECT_EQ(testing::thrown_message<InputError>([] {
              strip_mpi_launcher({"mpirun", "all_reduce_perf"});
            }),
            "argument BINARY: mpirun: no -np: say how many processes the run has; or give "
            "linksim the processes with --np N and the nccl-tests command alone");
  EXPECT_EQ(testing::thrown_message<InputError>([] {
              strip_mpi_launcher({"mpirun", "-np", "0", "all_reduce_perf"});
            }),
            "argument BINARY: mpirun: expected a whole number of processes after -np, not "
            "\"0\"; or give linksim the processes with --np N and the nccl-tests command alone");
  EXPECT_EQ(testing::thrown_message<InputError>([] {
              strip_mpi_launcher({"mpirun", "-np", "2"});
            }),
            "argument BINARY: mpirun: no nccl-tests command after the launcher's options; or "
            "give linksim the processes with --np N and the nccl-tests command alone");
}

TEST(MpiLauncher, APastedRunPrintsWhatTheNpFormPrints) {
  // An MPI build's binary (all_reduce_perf_mpi) runs the same test under its own name.
  const auto pasted = testing::run_linksim(
      "nccl-tests --topology aws-p4d-x2 mpirun -np 16 -x NCCL_DEBUG=INFO all_reduce_perf_mpi -b 8 "
      "-e 1M -f 32 -g 1");
  const auto plain = testing::run_linksim(
      "nccl-tests --topology aws-p4d-x2 --np 16 all_reduce_perf_mpi -b 8 -e 1M -f 32 -g 1");
  ASSERT_EQ(pasted.exit_code, 0) << pasted.err;
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(pasted.out, plain.out);
  EXPECT_NE(plain.out.find("# Collective test starting: all_reduce_perf_mpi\n"), std::string::npos);
  const auto disagree = testing::run_linksim(
      "nccl-tests --topology aws-p4d-x2 --np 8 mpirun -np 16 all_reduce_perf -g 1");
  EXPECT_EQ(disagree.exit_code, 2);
  EXPECT_EQ(disagree.err,
            "linksim: error: --np: 8 processes, but the pasted launcher says -np 16\n");
}

}  // namespace
}  // namespace linksim::app
