#pragma once
// nccl-tests output (any of its binaries: all_reduce_perf, all_gather_perf, ...). The layout is
// nccl-tests' util.cu: a "# nThread T nGpus G minBytes ..." line, "#  Rank r ..." lines, a
// column header with an out-of-place and an in-place group (time in us, algbw and busbw in GB/s
// = 1e9 B/s), one row per size, and the "# Avg bus bandwidth : x" footer. Columns are found by
// their header names, so -C (cputime), -S (timestamp) and -I (per-iteration) layouts read too.

#include <optional>
#include <string>
#include <vector>

#include "calibrate/import_options.hpp"
#include "calibrate/record.hpp"

namespace linksim::calibrate {

struct NcclTestsLog {
  std::string op;  // binary name, e.g. "all_reduce_perf"
  int threads = 0;
  int gpus_per_thread = 0;
  int iterations = 0;  // the header's "iters:" (-n), 0 when not printed
  // NCCL_VERSION_CODE of the library that ran ("# nccl-tests version ... nccl-library=21805",
  // the -J file's "nccl_version"); 0 when not printed, or when a printout's is not a release
  // linksim knows (a -J file's is then refused).
  int nccl_version = 0;
  int ranks = 0;  // "#  Rank" lines when printed, else threads * gpus_per_thread
  double avg_bus_bandwidth_Bps = 0;
  std::vector<Record> records;  // out-of-place and in-place rows, in file order
};

// The nccl-tests binaries linksim knows, e.g. "all_reduce_perf".
const std::vector<std::string>& nccl_tests_binaries();

// Most ranks a log may claim (nThread x nGpus, "#  Rank" lines, the -J file's nthreads x
// ngpus): beyond any machine.
inline constexpr long long kMaxNcclTestsRanks = 1 << 20;

// What nccl-tests prints as a result's type (its -d names) and reduction (its -o names, and
// "none" for a collective that does not reduce), in its own order.
const std::vector<std::string>& nccl_tests_type_names();
const std::vector<std::string>& nccl_tests_redop_names();

// `text` came from `file`: nccl-tests' printout, or its -J JSON file (text starting "{").
// The binary is options.nccl_tests_binary when set, else taken from the log (a command line or
// "# Collective test starting:" line naming "<op>_perf"; the JSON's "args"), else from the file
// name. Throws InputError naming the file and line for a truncated log (no footer), a row with
// missing or non-numeric cells, a second run in the same file (or a second row of one size,
// type, reduction and root), a row with #wrong above 0, a busbw that is not algbw x the
// binary's bus factor (coll::busbw_factor) within 2% or the printed rounding, a rank count the
// machine cannot have, or linksim's own simulated output (which is not a measurement).
NcclTestsLog import_nccl_tests(const std::string& text, const std::string& file,
                               const ImportOptions& options = {});
NcclTestsLog import_nccl_tests_file(const std::string& path, const ImportOptions& options = {});

// The -J reader behind import_nccl_tests (import_nccl_tests_json.cpp).
NcclTestsLog import_nccl_tests_json(const std::string& text, const std::string& file,
                                    const ImportOptions& options);

// Both readers' busbw check: busbw = algbw x `binary`'s bus factor for `ranks` (nccl-tests'
// *GetBw; coll::busbw_factor). nullopt when they agree within 2% or `rounding_GBps` (what
// printing both values can change), or when the binary has no bus factor; else what algbw
// implies.
struct BusbwMismatch {
  double factor = 1;
  double expected_GBps = 0;
};
std::optional<BusbwMismatch> busbw_mismatch(const std::string& binary, int ranks, double algbw_GBps,
                                            double busbw_GBps, double rounding_GBps);

// Both readers' NCCL version: `code` (a log's "nccl-library=" value, the -J file's
// "nccl_version") when it names a release linksim knows (sim/core/nccl_version.hpp), else 0, as
// for a log that does not say. The -J reader refuses a "nccl_version" that gives 0 instead:
// nccl-tests writes ncclGetVersion()'s code there, so anything else is damage.
int known_nccl_version(std::string_view code);

// A log argument: "FILE" or "FILE:BINARY" (e.g. run3.log:all_reduce_perf), the binary naming
// which nccl-tests binary wrote a log whose name and text do not say. A FILE that exists as
// given is taken whole, colon and all.
struct NcclTestsLogArgument {
  std::string path;
  std::string binary;  // empty when not given
};
NcclTestsLogArgument split_nccl_tests_log_argument(const std::string& argument);

}  // namespace linksim::calibrate
