#pragma once
// What an nccl-tests binary prints on a simulated machine: `linksim nccl-tests` as a call.
//
//   linksim::NcclTestsOptions options;
//   options.binary = "all_reduce_perf";
//   options.arguments = {"-b", "8", "-e", "1G", "-f", "2", "-g", "8"};
//   options.machine = "dgx-h100";
//   const linksim::NcclTestsResult result = linksim::simulate_nccl_tests(options);
//   for (const auto& row : result.rows) use(row.size_bytes, row.busbw_GBps);
//
// Part of the installed C++ package (docs/cpp-api.md): standard headers only. Throws
// linksim::InputError for bad input, naming the file and location (or the option).

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace linksim {

struct NcclTestsOptions {
  // The binary's file name: "all_reduce_perf", "all_gather_perf", "alltoall_perf", ...
  // Required.
  std::string binary;
  // The binary's own arguments, one word each, as nccl-tests reads them ("-b", "8", "-g", "8").
  // Default: none (nccl-tests' defaults: one size of 32 MiB on one GPU per process).
  std::vector<std::string> arguments;
  // The machine or cluster: a file, or a shipped name ("dgx-a100"). Required.
  std::string machine;
  // Scale the machine to this many nodes. Default 0: as the file says.
  int nodes = 0;
  // Processes, as mpirun -np gives them; the ranks are processes x -t x -g. Default 1.
  int processes = 1;
  // "NAME=VALUE" entries of the environment the run sees; those starting with NCCL are read
  // (NCCL_ALGO, NCCL_PROTO, NCCL_NVLS_ENABLE, NCCL_TESTS_MIN_BW). Default: none. The calling
  // process's own environment is never read.
  std::vector<std::string> environment;
  // Algorithms and protocols in NCCL_ALGO's and NCCL_PROTO's syntax ("ring,tree", "^LL128").
  // Default "": the environment's, else NCCL's own choice.
  std::string algo;
  std::string proto;
  // The NCCL release to stand for ("2.18.5" or "21805"). Default "": the release the model
  // follows.
  std::string nccl_version;
  // Sizes simulated at once. Default 0: one per core. The result is the same for any count.
  int threads = 0;
};

// One size, as nccl-tests prints its columns. Times are the -C column when the arguments ask
// for CPU time (-C 1), as the printout shows them.
struct NcclTestsRow {
  std::uint64_t size_bytes = 0;
  std::uint64_t count = 0;  // elements
  std::string type;         // "float", "half", ...
  std::string redop;        // "sum", ... ("none" for operations without one)
  int root = -1;            // -1 for operations without one
  double time_us = 0;       // out of place
  double algbw_GBps = 0;
  double busbw_GBps = 0;
  double in_place_time_us = 0;
  double in_place_algbw_GBps = 0;
  double in_place_busbw_GBps = 0;
};

struct NcclTestsResult {
  // One per size of the first test (-m runs the same sizes again).
  std::vector<NcclTestsRow> rows;
  // What the binary prints on stdout, byte for byte in nccl-tests' layout.
  std::string printout;
  // linksim's notes for stderr: unmodelled flags, ranges.
  std::string notes;
  // -J FILE: the file's content, and where nccl-tests would write it: FILE, or FILE.0, FILE.1,
  // ... where FILE exists (nccl-tests never overwrites), when the name ends in .json and its
  // folder is writable; "" otherwise, as the printout and notes say. Nothing is written: the
  // caller writes `json` where it chooses.
  std::string json;
  std::string json_path;
  std::string machine;  // the machine's name
  std::size_t ranks = 0;
  // NCCL_TESTS_MIN_BW was set and the average bus bandwidth came under 90% of it: the
  // printout says FAILED, as nccl-tests does before exiting non-zero.
  bool bandwidth_check_failed = false;
};

NcclTestsResult simulate_nccl_tests(const NcclTestsOptions& options);

}  // namespace linksim
