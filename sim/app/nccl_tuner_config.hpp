#pragma once
// The library call behind `linksim tune`: a configuration for NCCL's example tuner plugin
// (sim/report/nccl_tuner_config_format.hpp) that overrides NCCL's choice of algorithm,
// protocol and channels where linksim predicts a clearly faster one.
//
// For each operation the plugin knows (allreduce, allgather, reducescatter, broadcast, reduce)
// and each size from min_bytes to max_bytes in powers of two, on the machine's first `ranks`
// GPUs: NCCL's own pick comes from its cost model (coll::nccl_tuner_pick, what NCCL runs with no
// plugin), linksim's from simulating every candidate NCCL could run (the
// --simulate-candidates planner). A size gets a row when the two differ and NCCL's pick takes
// more than (1 + margin) times linksim's time; neighbouring sizes with the same row merge into
// one range (nccl_tuner_ranges.hpp). Sizes where NCCL's model covers no pick get none.
//
// Sizes are NCCL's nBytes, what it passes the plugin: the buffer for all-reduce, broadcast and
// reduce; the whole gathered buffer (n x each rank's part) for all-gather and reduce-scatter,
// as nccl-tests' size column (coll::Request::size_bytes).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/coll/collective.hpp"
#include "sim/coll/request.hpp"
#include "sim/report/nccl_tuner_config_format.hpp"

namespace linksim::app {

struct NcclTunerOptions {
  std::string machine;  // a file or a shipped name; required
  int nodes = 0;        // scale the machine to this many nodes (0: as the file says)
  int ranks = 0;        // the first `ranks` GPUs, one rank each (0: every GPU)
  // A row needs NCCL's pick to take more than (1 + margin_percent / 100) x linksim's time.
  double margin_percent = 5;
  // The sizes simulated: min_bytes, 2 min_bytes, ... up to max_bytes (both at least 1).
  std::uint64_t min_bytes = 8;
  std::uint64_t max_bytes = std::uint64_t{16} << 30;
  // Also write NCCL's own pick, with its channel count, for every size that gets no override:
  // the example plugin runs whatever it does not match on one channel.
  bool all_sizes = false;
  // Threads simulating (operation, size) cases at once; 0: one per core. Same output for any.
  int threads = 0;
  // Called after each case with (cases done, cases in all); may be empty.
  std::function<void(std::size_t done, std::size_t total)> progress;
};

// What was found for one operation at one size.
struct NcclTunerCase {
  coll::Op op = coll::Op::all_reduce;
  std::uint64_t size_bytes = 0;
  // NCCL's pick and its simulated time; nullopt where its cost model covers no pick.
  std::optional<coll::Choice> nccl;
  double nccl_s = 0;
  // The fastest candidate simulated, and its time.
  coll::Choice best;
  double best_s = 0;
  // What the file says for this size: the override, NCCL's own pick (all_sizes), or nothing.
  std::optional<coll::Choice> written;
  bool overrides = false;  // written is linksim's choice, not NCCL's own
};

struct NcclTunerResult {
  std::string machine_name;
  std::string machine_title;
  int nodes = 0;                     // NCCL's nNodes: the hosts the ranks span
  int ranks = 0;                     // NCCL's nRanks
  std::vector<NcclTunerCase> cases;  // by operation (as listed above), then size
  std::vector<report::NcclTunerConfigLine> lines;
  std::string text;  // the file
};

// The operations the plugin can be told about, in the file's order.
std::vector<coll::Op> nccl_tuner_ops();

// Throws InputError for a bad machine, more ranks than it has GPUs, a margin below 0, or sizes
// out of order or above 64 GiB.
NcclTunerResult tune_nccl(const NcclTunerOptions& options);

}  // namespace linksim::app
