#pragma once
// The library call behind `linksim nccl-tests`: what an nccl-tests binary prints on a simulated
// machine, byte for byte in nccl-tests 2.19.6's layout, given the binary's own arguments and the
// NCCL environment the run would see. Nothing here reads the process environment or writes a
// file: the caller passes the environment in and decides where the texts go.
//
//   app::NcclTestsInvocation inv = app::parse_nccl_tests_invocation("all_reduce_perf", {"-b",
//   "8"}); app::NcclTestsOptions options; options.machine = "dgx-h100"; app::NcclTestsResult r =
//   app::simulate_nccl_tests(options, inv); std::cout << r.printout;

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/coll/collective.hpp"
#include "sim/coll/nccl_tests_options.hpp"
#include "sim/coll/sweep.hpp"
#include "sim/report/plot.hpp"

namespace linksim::app {

// A binary and its arguments, read before any machine is loaded (so a caller can check the
// outputs they name before the work).
struct NcclTestsInvocation {
  std::string binary;                // file name of the binary, e.g. "all_reduce_perf"
  std::vector<std::string> command;  // the binary followed by its arguments, as typed
  coll::Op op = coll::Op::all_reduce;
  coll::NcclTestsSettings settings;  // what the arguments set (nccl_tests_options.hpp)
  bool help = false;                 // the arguments asked for the binary's --help
};

// Throws InputError for an unknown binary or a bad argument.
NcclTestsInvocation parse_nccl_tests_invocation(const std::string& binary,
                                                const std::vector<std::string>& arguments);

// The options nccl-tests reads, one line each, as the binary's --help lists them.
std::string nccl_tests_help(const NcclTestsInvocation& invocation);

struct NcclTestsOptions {
  // The machine or cluster: a file or a shipped name. Required.
  std::string machine;
  // Scale the machine to this many nodes (0: as the file says).
  int nodes = 0;
  // Processes, as mpirun -np gives them; the world is processes x -t x -g ranks (at least 1).
  int processes = 1;
  // Algorithms and protocols in NCCL_ALGO's / NCCL_PROTO's syntax; empty: the environment's.
  std::string algo;
  std::string proto;
  // "NAME=VALUE" entries of the environment the run sees; those starting with NCCL are read
  // (NCCL_ALGO, NCCL_PROTO, NCCL_NVLS_ENABLE, NCCL_TESTS_MIN_BW) and echoed in -J's "env".
  std::vector<std::string> environment;
  // The NCCL release to stand for ("2.18.5" or 21805; sim/core/nccl_version.hpp); empty: the
  // release the model follows. It is printed as nccl-tests prints NCCL's version, and changes
  // how data is moved where releases differ.
  std::string nccl_version;
  // Per-size notes (algorithm, channels, bottleneck) and the network's rings in the printout.
  bool explain = false;
  // Run each size's fastest candidate, every one simulated, rather than NCCL's pick
  // (coll::Request::simulate_every_candidate).
  bool simulate_every_candidate = false;
  // Simulate every loop of each size (coll::Request::simulate_every_loop).
  bool simulate_every_loop = false;
  // Threads simulating sizes at once; 0: one per core. The output is the same for any count.
  int threads = 0;
  // Called after each size with (sizes done, sizes in all); may be empty.
  std::function<void(std::size_t done, std::size_t total)> progress;
};

struct NcclTestsResult {
  std::string printout;  // what the binary prints on stdout (with the "Writing JSON" line)
  std::string notes;     // linksim's notes for stderr: unmodelled flags, launch default, ranges
  std::string json;      // nccl-tests' -J JSON, when the invocation asked for it
  // The sweep of the first test, for pictures and comparisons.
  std::string machine_name;
  std::size_t ranks = 0;
  std::vector<coll::SweepRow> rows;
  coll::SweepSpec spec;
  // NCCL_TESTS_MIN_BW was set and the average bus bandwidth came under 90% of it: the printout
  // says FAILED, and nccl-tests exits non-zero.
  bool bandwidth_check_failed = false;
};

// Runs every test the invocation asks for on the machine. `json_path` is where the caller will
// put the -J file ("" for none), named in the printout as nccl-tests names it. Throws InputError
// for bad input.
NcclTestsResult simulate_nccl_tests(const NcclTestsOptions& options,
                                    const NcclTestsInvocation& invocation,
                                    const std::string& json_path);

// Where -J FILE goes, as nccl-tests decides (util.cu jsonOutputInit, common.cu
// classifyOutputFile): only a name ending in .json is written, never over an existing file (it
// probes FILE.0, FILE.1, ...; `overwrite` keeps FILE), and a destination that cannot be created
// is skipped with a line in the printout. nccl-tests says nothing of a name it ignores; linksim
// says on stderr that nothing was written, and why.
struct NcclTestsJsonDestination {
  std::string path;          // the file to write; "" for none
  std::string printed_line;  // nccl-tests' "# skipping json output; FILE not accessible\n"
  std::string note;          // "linksim: note: -J ...: nothing written ...\n" for stderr
};
NcclTestsJsonDestination nccl_tests_json_destination(const std::string& path, bool overwrite,
                                                     bool given = true);

// The result's busbw series, then the same sweep on each machine of `others` over as many GPUs,
// for a picture that compares them.
std::vector<report::BusbwSeries> busbw_series_with(const NcclTestsResult& result,
                                                   const std::vector<std::string>& others);

}  // namespace linksim::app
