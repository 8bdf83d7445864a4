#include "calibrate/import_nccl_tests.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <map>

#include "calibrate/text_lines.hpp"
#include "sim/coll/collective.hpp"
#include "sim/coll/sweep.hpp"
#include "sim/core/error.hpp"
#include "sim/core/nccl_version.hpp"
#include "sim/core/units.hpp"

namespace linksim::calibrate {

const std::vector<std::string>& nccl_tests_binaries() {
  static const std::vector<std::string> names = {
      "all_gather_perf",     "all_reduce_perf", "alltoall_perf",  "alltoallv_perf",
      "broadcast_perf",      "gather_perf",     "hypercube_perf", "reduce_perf",
      "reduce_scatter_perf", "scatter_perf",    "sendrecv_perf"};
  return names;
}

const std::vector<std::string>& nccl_tests_type_names() {
  static const std::vector<std::string> names = {"int8",   "uint8",    "int32",  "uint32",
                                                 "int64",  "uint64",   "half",   "float",
                                                 "double", "bfloat16", "f8e4m3", "f8e5m2"};
  return names;
}

const std::vector<std::string>& nccl_tests_redop_names() {
  static const std::vector<std::string> names = {"sum", "prod",   "max", "min",
                                                 "avg", "mulsum", "none"};
  return names;
}

namespace {

// The version line's "nccl-library=21805" (known_nccl_version); 0 without one.
int library_version(const std::vector<std::string>& cells) {
  constexpr std::string_view key = "nccl-library=";
  for (const auto& cell : cells) {
    if (cell.starts_with(key)) return known_nccl_version(std::string_view(cell).substr(key.size()));
  }
  return 0;
}

// The longest known binary name that occurs in `text` (so "reduce_scatter_perf" wins over
// "scatter_perf" and "reduce_perf"), or "".
std::string find_binary(std::string_view text) {
  std::string best;
  for (const auto& name : nccl_tests_binaries()) {
    if (contains(text, name) && name.size() > best.size()) best = name;
  }
  return best;
}

std::string basename_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Bounds of a row's figures in the log's units: 1e7 s in us, 1 PB/s in GB/s.
constexpr double kMaxTime_us = units::kMaxTime_s * 1e6;
constexpr double kMaxBandwidth_GBps = units::kMaxBandwidth_Bps / 1e9;

// Reads "key value" pairs from the "# nThread 1 nGpus 2 ..." line: at least 1, at most
// kMaxNcclTestsRanks.
int header_int(const std::vector<std::string>& cells, std::string_view key, const std::string& file,
               int line) {
  for (std::size_t i = 0; i + 1 < cells.size(); ++i) {
    if (cells[i] != key) continue;
    const long long v = parse_integer_cell(cells[i + 1], file, line, key, kMaxNcclTestsRanks);
    if (v < 1) {
      throw InputError(file, line_location(line),
                       fmt::format("{}: expected at least 1, found {}", key, v));
    }
    return static_cast<int>(v);
  }
  throw InputError(file, line_location(line),
                   fmt::format("the \"# nThread\" header has no \"{}\" value", key));
}

struct Group {
  std::size_t time = 0;
  std::size_t algbw = 0;
  std::size_t busbw = 0;
  std::size_t wrong = 0;  // "#wrong", 0 when the layout has none
};

// A row's algbw and busbw as printed, checked against the binary's bus factor once the rank
// count is known.
struct BusPair {
  int line = 0;
  const char* group = "";  // "out-of-place" or "in-place"
  std::string algbw;
  std::string busbw;
  double algbw_GBps = 0;
  double busbw_GBps = 0;
};

// Half the last printed digit of a decimal cell: 0.005 for "1.63", 0.5 for "999".
double half_last_digit(std::string_view cell) {
  const auto dot = cell.find('.');
  if (dot == std::string_view::npos || cell.find_first_of("eE") != std::string_view::npos) {
    return 0.5;
  }
  return 0.5 * std::pow(10.0, -static_cast<double>(cell.size() - dot - 1));
}

// A row's count and element type, checked against its size once the rank count is known.
struct RowShape {
  int line = 0;
  long long size_bytes = 0;
  long long count = 0;
  int type_bytes = 0;
  std::string type;
};

// Operations whose "count" is each rank's part, so that size = count x type x ranks
// (nccl-tests' *GetCollByteCount: the printed size is the larger of send and receive bytes).
bool count_is_per_rank(const std::string& op) {
  return op == "all_gather_perf" || op == "reduce_scatter_perf" || op == "alltoall_perf" ||
         op == "gather_perf" || op == "scatter_perf" || op == "hypercube_perf";
}

// The reader's state across lines; one method per kind of line.
class Reader {
 public:
  Reader(const std::string& file, const ImportOptions& options) : file_(file), options_(options) {
    log_.op = options.nccl_tests_binary;
  }

  void line(int number, const std::string& raw);
  NcclTestsLog finish();

 private:
  void header(int number, const std::vector<std::string>& cells);
  void column_header(int number, const std::vector<std::string>& cells);
  void footer(int number, const std::string& line);
  void rank_line(int number, const std::vector<std::string>& cells);
  void row(int number, const std::vector<std::string>& cells);
  void check_ranks() const;
  void check_shapes() const;
  void check_bus_bandwidths() const;
  void check_wrong(int number, const std::string& cell, const char* group) const;
  void check_repeated_size(int number, long long size, const std::vector<std::string>& cells);

  const std::string& file_;
  const ImportOptions& options_;
  NcclTestsLog log_;
  int header_line_ = 0;
  int rank_lines_ = 0;
  int columns_line_ = 0;
  std::vector<std::string> columns_;
  std::vector<Group> groups_;
  std::size_t type_col_ = 0;
  std::size_t redop_col_ = 0;
  std::size_t root_col_ = 0;
  bool footer_ = false;
  int footer_line_ = 0;
  std::map<long long, int> rank_line_of_;  // rank -> its "#  Rank" line
  int last_row_line_ = 0;
  std::vector<RowShape> shapes_;
  std::vector<BusPair> bus_pairs_;
  std::map<std::string, int> row_keys_;  // size, type, redop and root -> the row's line
};

// linksim's nccl-tests printout: the old layout's first line, or its rank lines, which number
// PCI buses from rank 0 at 0000:00:00, where a real GPU never sits (bus 0 is the root complex).
bool is_linksim_printout(const std::string& text) {
  return contains(text, "linksim simulation of nccl-tests") ||
         (starts_with(text, "#  Rank") && contains(text, " device  0 [0000:00:00] "));
}

void Reader::line(int number, const std::string& raw) {
  const std::string text = trim(raw);
  if (text.empty()) return;
  if (is_linksim_printout(raw)) {
    throw InputError(file_, line_location(number),
                     "this is linksim's own nccl-tests output (a simulation), not a measurement: "
                     "fit needs a log from a real run");
  }
  if (log_.op.empty() && header_line_ == 0) log_.op = find_binary(text);
  if (starts_with(text, "#")) {
    const auto cells = split_cells(text.substr(1));
    if (starts_with(text, "# nccl-tests version")) log_.nccl_version = library_version(cells);
    if (!cells.empty() && cells[0] == "nThread") {
      header(number, cells);
    } else if (!cells.empty() && cells[0] == "Rank" && header_line_ != 0) {
      rank_line(number, cells);
    } else if (cells.size() >= 2 && cells[0] == "size" && cells[1] == "count") {
      column_header(number, cells);
    } else if (starts_with(text, "# Avg bus bandwidth")) {
      footer(number, text);
    }
    return;
  }
  if (columns_line_ == 0) return;
  const auto cells = split_cells(text);
  // Rows start with the size in bytes; anything else between header and footer (NCCL INFO
  // lines, mpirun chatter) is not part of the table. A negative size is a row, and refused;
  // so is a line shaped like a row (a cell per column, a digit first) whose size is damaged,
  // which would otherwise drop out of the fit unnoticed.
  if (cells.empty()) return;
  const bool row_shaped =
      cells.size() == columns_.size() && std::isdigit(static_cast<unsigned char>(cells[0][0])) != 0;
  if (!is_number_cell(cells[0]) && !row_shaped) return;
  // The footer ends the table: a row after it was pasted in (from another run, or a second
  // copy of this one), and would be fitted as if this run had timed it.
  if (footer_) {
    throw InputError(file_, line_location(number),
                     fmt::format("a table row after the \"# Avg bus bandwidth\" footer at line {}, "
                                 "which ends the table; give one run per file",
                                 footer_line_));
  }
  row(number, cells);
}

// "#  Rank  0 Group  0 Pid 1234 on host device  0 [0x07] NVIDIA ...": one line per rank, each
// rank once. A rank listed twice is a second run's device list pasted in; counted, it would
// make the rank count (and the bus factor with it) wrong.
void Reader::rank_line(int number, const std::vector<std::string>& cells) {
  if (cells.size() < 2) {
    throw InputError(file_, line_location(number), "\"#  Rank\" line without a rank number");
  }
  const long long rank =
      parse_integer_cell(cells[1], file_, number, "rank", kMaxNcclTestsRanks - 1);
  const auto [it, fresh] = rank_line_of_.emplace(rank, number);
  if (!fresh) {
    throw InputError(file_, line_location(number),
                     fmt::format("a second device line for rank {} (the first is at line {}); "
                                 "give one run per file",
                                 rank, it->second));
  }
  ++rank_lines_;
}

void Reader::header(int number, const std::vector<std::string>& cells) {
  if (header_line_ != 0) {
    throw InputError(file_, line_location(number),
                     fmt::format("a second nccl-tests run starts here (the first began at "
                                 "line {}); give one run per file",
                                 header_line_));
  }
  header_line_ = number;
  log_.threads = header_int(cells, "nThread", file_, number);
  log_.gpus_per_thread = header_int(cells, "nGpus", file_, number);
  // "warmup iters: 5 iters: 20 agg iters: 1": the timed count is the "iters:" that no
  // "warmup" or "agg" precedes.
  for (std::size_t i = 1; i + 1 < cells.size(); ++i) {
    if (cells[i] == "iters:" && cells[i - 1] != "warmup" && cells[i - 1] != "agg") {
      const long long v = parse_integer_cell(cells[i + 1], file_, number, "iters", 1 << 30);
      if (v >= 1) log_.iterations = static_cast<int>(v);
    }
  }
}

void Reader::column_header(int number, const std::vector<std::string>& cells) {
  if (columns_line_ != 0) {
    throw InputError(file_, line_location(number),
                     fmt::format("a second column header (the first is at line {}); give one "
                                 "run per file",
                                 columns_line_));
  }
  columns_line_ = number;
  columns_ = cells;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (cells[i] == "time" || cells[i] == "cputime") groups_.push_back({i, 0, 0});
    if (cells[i] == "algbw" && !groups_.empty()) groups_.back().algbw = i;
    if (cells[i] == "busbw" && !groups_.empty()) groups_.back().busbw = i;
    if (cells[i] == "#wrong" && !groups_.empty()) groups_.back().wrong = i;
    if (cells[i] == "type") type_col_ = i;
    if (cells[i] == "redop") redop_col_ = i;
    if (cells[i] == "root") root_col_ = i;
  }
  if (groups_.empty() || groups_.size() > 2 ||
      std::any_of(groups_.begin(), groups_.end(),
                  [](const Group& g) { return g.algbw == 0 || g.busbw == 0; })) {
    throw InputError(file_, line_location(number), "column header without time/algbw/busbw groups");
  }
}

void Reader::footer(int number, const std::string& text) {
  const auto colon = text.find(':');
  const auto value_cells = split_cells(colon == std::string::npos ? "" : text.substr(colon + 1));
  if (value_cells.empty()) {
    throw InputError(file_, line_location(number), "\"# Avg bus bandwidth\" without a value");
  }
  log_.avg_bus_bandwidth_Bps =
      parse_measure_cell(value_cells[0], file_, number, "average bus bandwidth", true,
                         kMaxBandwidth_GBps) *
      1e9;
  footer_ = true;
  footer_line_ = number;
}

void Reader::row(int number, const std::vector<std::string>& cells) {
  if (cells.size() != columns_.size()) {
    throw InputError(file_, line_location(number),
                     fmt::format("table row has {} cells, the header at line {} has {} columns "
                                 "(truncated or damaged row?)",
                                 cells.size(), columns_line_, columns_.size()));
  }
  const long long size = parse_integer_cell(cells[0], file_, number, "size (B)",
                                            static_cast<long long>(units::kMaxBytes));
  if (type_col_ != 0) {
    RowShape shape{number, size, 0, coll::dtype_bytes(cells[type_col_]), cells[type_col_]};
    if (shape.type_bytes == 0) {
      throw InputError(file_, line_location(number),
                       fmt::format("unknown data type \"{}\"", cells[type_col_]));
    }
    if (type_col_ > 1) {
      shape.count = parse_integer_cell(cells[1], file_, number, "count (elements)");
      shapes_.push_back(shape);
    }
  }
  if (redop_col_ != 0) {
    const auto& names = nccl_tests_redop_names();
    if (std::find(names.begin(), names.end(), cells[redop_col_]) == names.end()) {
      throw InputError(file_, line_location(number),
                       fmt::format("unknown reduction \"{}\"; expected sum, prod, max, min, "
                                   "avg, mulsum or none",
                                   cells[redop_col_]));
    }
  }
  check_repeated_size(number, size, cells);
  for (std::size_t g = 0; g < groups_.size(); ++g) {
    const char* group = g == 0 ? "out-of-place" : "in-place";
    if (groups_[g].wrong != 0) check_wrong(number, cells[groups_[g].wrong], group);
    Record r;
    r.variant = g == 0 ? "out_of_place" : "in_place";
    r.size_bytes = static_cast<double>(size);
    r.time_s =
        parse_measure_cell(cells[groups_[g].time], file_, number, "time (us)", false, kMaxTime_us) *
        1e-6;
    r.bandwidth_Bps = parse_measure_cell(cells[groups_[g].algbw], file_, number, "algbw (GB/s)",
                                         true, kMaxBandwidth_GBps) *
                      1e9;
    r.bus_bandwidth_Bps = parse_measure_cell(cells[groups_[g].busbw], file_, number, "busbw (GB/s)",
                                             true, kMaxBandwidth_GBps) *
                          1e9;
    r.source_file = file_;
    r.source_line = number;
    bus_pairs_.push_back({number, group, cells[groups_[g].algbw], cells[groups_[g].busbw],
                          r.bandwidth_Bps / 1e9, r.bus_bandwidth_Bps / 1e9});
    log_.records.push_back(std::move(r));
  }
  last_row_line_ = number;
}

// "#wrong" counts the values that failed nccl-tests' check (N/A when checking is off, -c 0):
// a row with wrong results timed a run that did not compute the collective.
void Reader::check_wrong(int number, const std::string& cell, const char* group) const {
  if (cell == "N/A") return;
  const long long wrong = parse_integer_cell(cell, file_, number, "#wrong");
  if (wrong > 0) {
    throw InputError(
        file_, line_location(number),
        fmt::format("{} wrong results ({} #wrong): the run failed validation", wrong, group));
  }
}

// One run times each size once per type, reduction and root; a second row for the same ones is
// a second run (or -N cycles) pasted into the file, and the fit would count it twice.
void Reader::check_repeated_size(int number, long long size,
                                 const std::vector<std::string>& cells) {
  std::string what;
  for (const std::size_t col : {type_col_, redop_col_}) {
    if (col != 0) what += " " + cells[col];
  }
  if (root_col_ != 0) what += " root " + cells[root_col_];
  const auto [it, fresh] = row_keys_.emplace(fmt::format("{}{}", size, what), number);
  if (!fresh) {
    throw InputError(file_, line_location(number),
                     fmt::format("a second {} B row{} (the first is at line {}); give one run "
                                 "per file",
                                 size, what.empty() ? "" : " for" + what, it->second));
  }
}

// The header's counts against the "#  Rank" lines and the machine.
void Reader::check_ranks() const {
  const long long per_process =
      static_cast<long long>(log_.threads) * static_cast<long long>(log_.gpus_per_thread);
  if (per_process > kMaxNcclTestsRanks) {
    throw InputError(file_, line_location(header_line_),
                     fmt::format("nThread x nGpus = {} x {} is above the {} ranks linksim accepts",
                                 log_.threads, log_.gpus_per_thread, kMaxNcclTestsRanks));
  }
  if (options_.expected_gpu_count && per_process > *options_.expected_gpu_count) {
    throw InputError(
        file_, line_location(header_line_),
        fmt::format("one process drives {} x {} = {} GPUs but the topology has {}", log_.threads,
                    log_.gpus_per_thread, per_process, *options_.expected_gpu_count));
  }
  if (rank_lines_ > 0 && rank_lines_ % per_process != 0) {
    throw InputError(file_, line_location(header_line_),
                     fmt::format("{} \"#  Rank\" lines are not a whole number of processes of {} "
                                 "x {} GPUs",
                                 rank_lines_, log_.threads, log_.gpus_per_thread));
  }
}

// size = count x type bytes (x ranks where the count is per rank), as nccl-tests prints it.
void Reader::check_shapes() const {
  const bool per_rank = count_is_per_rank(log_.op);
  if (!per_rank && log_.op == "alltoallv_perf") return;  // not an upstream binary: no rule
  for (const auto& s : shapes_) {
    const long long ranks = per_rank ? log_.ranks : 1;
    long long expected = 0;
    const bool overflow = __builtin_mul_overflow(s.count, s.type_bytes, &expected) ||
                          __builtin_mul_overflow(expected, ranks, &expected);
    if (overflow || expected != s.size_bytes) {
      throw InputError(
          file_, line_location(s.line),
          fmt::format("size {} B is not count {} x {} B ({}){}", s.size_bytes, s.count,
                      s.type_bytes, s.type, per_rank ? fmt::format(" x {} ranks", ranks) : ""));
    }
  }
}

// busbw = algbw x the binary's bus factor for the run's ranks (nccl-tests' *GetBw; coll::
// busbw_factor), within 2%, or within what printing both to their last digit can change
// (half a digit of busbw plus the factor times half a digit of algbw, and 0.001 GB/s more:
// 0.011 GB/s for 2 decimals and a factor of 1). A busbw that disagrees was edited or comes from
// another rank count or binary.
void Reader::check_bus_bandwidths() const {
  const auto op = coll::op_from_nccl_tests_binary(log_.op);
  if (!op) return;
  const double factor = coll::busbw_factor(*op, log_.ranks);
  for (const auto& p : bus_pairs_) {
    const double rounding = half_last_digit(p.busbw) + factor * half_last_digit(p.algbw) + 0.001;
    const auto off = busbw_mismatch(log_.op, log_.ranks, p.algbw_GBps, p.busbw_GBps, rounding);
    if (!off) continue;
    throw InputError(file_, line_location(p.line),
                     fmt::format("{} busbw {} GB/s is not algbw {} GB/s x {:.4g} ({}'s bus "
                                 "factor for {} ranks) = {:.2f} GB/s",
                                 p.group, p.busbw, p.algbw, off->factor, log_.op, log_.ranks,
                                 off->expected_GBps));
  }
}

NcclTestsLog Reader::finish() {
  if (header_line_ == 0) {
    throw InputError(file_, "", "not nccl-tests output: no \"# nThread ... nGpus ...\" line");
  }
  if (columns_line_ == 0) {
    throw InputError(file_, line_location(header_line_),
                     "truncated nccl-tests log: no column header after the \"# nThread\" line");
  }
  if (!footer_) {
    throw InputError(file_, line_location(last_row_line_ == 0 ? columns_line_ : last_row_line_),
                     "truncated nccl-tests log: no \"# Avg bus bandwidth\" footer after the table");
  }
  if (log_.records.empty()) {
    throw InputError(file_, line_location(columns_line_), "nccl-tests table has no rows");
  }
  if (log_.op.empty()) log_.op = find_binary(basename_of(file_));
  if (log_.op.empty()) {
    throw InputError(file_, "",
                     fmt::format("cannot tell which nccl-tests binary wrote this log: no command "
                                 "line in it and no binary name in the file name (one of {})",
                                 fmt::join(nccl_tests_binaries(), ", ")));
  }
  check_ranks();
  log_.ranks = rank_lines_ > 0 ? rank_lines_ : log_.threads * log_.gpus_per_thread;
  if (options_.expected_gpu_count && log_.ranks > *options_.expected_gpu_count) {
    throw InputError(file_, line_location(header_line_),
                     fmt::format("the log ran on {} GPUs but the topology has {}", log_.ranks,
                                 *options_.expected_gpu_count));
  }
  check_shapes();
  check_bus_bandwidths();
  for (auto& r : log_.records) {
    r.kind = std::string(kind::nccl_prefix) + log_.op;
    r.gpu_count = log_.ranks;
    r.gpus_per_thread = log_.gpus_per_thread;
    r.iterations = log_.iterations;
    r.nccl_version = log_.nccl_version;
  }
  return std::move(log_);
}

}  // namespace

int known_nccl_version(std::string_view code) {
  try {
    return parse_nccl_version(code);
  } catch (const NcclVersionError&) {
    return 0;
  }
}

NcclTestsLog import_nccl_tests(const std::string& text, const std::string& file,
                               const ImportOptions& options) {
  if (starts_with(trim(text), "{")) return import_nccl_tests_json(text, file, options);
  Reader reader(file, options);
  for (const auto& [number, raw] : split_lines(text))
    reader.line(number, raw);
  return reader.finish();
}

NcclTestsLog import_nccl_tests_file(const std::string& path, const ImportOptions& options) {
  const NcclTestsLogArgument arg = split_nccl_tests_log_argument(path);
  ImportOptions o = options;
  if (!arg.binary.empty()) o.nccl_tests_binary = arg.binary;
  return import_nccl_tests(read_text_file(arg.path), arg.path, o);
}

NcclTestsLogArgument split_nccl_tests_log_argument(const std::string& argument) {
  const auto colon = argument.rfind(':');
  std::error_code ec;
  if (colon == std::string::npos || std::filesystem::exists(argument, ec)) return {argument, ""};
  const std::string binary = argument.substr(colon + 1);
  const auto& names = nccl_tests_binaries();
  if (std::find(names.begin(), names.end(), binary) == names.end()) {
    throw InputError(argument.substr(0, colon), "",
                     fmt::format("\"{}\" after the colon is not an nccl-tests binary; expected "
                                 "one of {}",
                                 binary, fmt::join(names, ", ")));
  }
  return {argument.substr(0, colon), binary};
}

std::optional<BusbwMismatch> busbw_mismatch(const std::string& binary, int ranks, double algbw_GBps,
                                            double busbw_GBps, double rounding_GBps) {
  const auto op = coll::op_from_nccl_tests_binary(binary);
  if (!op || ranks < 1) return std::nullopt;
  const double factor = coll::busbw_factor(*op, ranks);
  const double expected_GBps = algbw_GBps * factor;
  if (std::abs(busbw_GBps - expected_GBps) <= std::max(0.02 * expected_GBps, rounding_GBps)) {
    return std::nullopt;
  }
  return BusbwMismatch{factor, expected_GBps};
}

}  // namespace linksim::calibrate
