#include "calibrate/import_nccl_tests.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "calibrate/text_lines.hpp"
#include "sim/core/error.hpp"

namespace linksim::calibrate {

const std::vector<std::string>& nccl_tests_binaries() {
  static const std::vector<std::string> names = {
      "all_gather_perf",     "all_reduce_perf", "alltoall_perf",  "alltoallv_perf",
      "broadcast_perf",      "gather_perf",     "hypercube_perf", "reduce_perf",
      "reduce_scatter_perf", "scatter_perf",    "sendrecv_perf"};
  return names;
}

namespace {

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

// Reads "key value" pairs from the "# nThread 1 nGpus 2 ..." line.
int header_int(const std::vector<std::string>& cells, std::string_view key, const std::string& file,
               int line) {
  for (std::size_t i = 0; i + 1 < cells.size(); ++i) {
    if (cells[i] == key) {
      return static_cast<int>(parse_integer_cell(cells[i + 1], file, line, key));
    }
  }
  throw InputError(file, line_location(line),
                   fmt::format("the \"# nThread\" header has no \"{}\" value", key));
}

struct Group {
  std::size_t time = 0;
  std::size_t algbw = 0;
  std::size_t busbw = 0;
};

}  // namespace

NcclTestsLog import_nccl_tests(const std::string& text, const std::string& file,
                               const ImportOptions& options) {
  NcclTestsLog log;
  const auto lines = split_lines(text);
  int header_line = 0;
  int rank_lines = 0;
  int columns_line = 0;
  std::vector<std::string> columns;
  std::vector<Group> groups;
  std::size_t size_col = 0;
  bool footer = false;
  int last_row_line = 0;

  for (const auto& [number, raw] : lines) {
    const std::string line = trim(raw);
    if (line.empty()) continue;
    if (log.op.empty() && header_line == 0) {
      log.op = find_binary(line);
    }
    if (starts_with(line, "#")) {
      const auto cells = split_cells(line.substr(1));
      if (!cells.empty() && cells[0] == "nThread") {
        if (header_line != 0) {
          throw InputError(file, line_location(number),
                           fmt::format("a second nccl-tests run starts here (the first began at "
                                       "line {}); give one run per file",
                                       header_line));
        }
        header_line = number;
        log.threads = header_int(cells, "nThread", file, number);
        log.gpus_per_thread = header_int(cells, "nGpus", file, number);
        // "warmup iters: 5 iters: 20 agg iters: 1": the timed count is the "iters:" that no
        // "warmup" or "agg" precedes.
        for (std::size_t i = 1; i + 1 < cells.size(); ++i) {
          if (cells[i] == "iters:" && cells[i - 1] != "warmup" && cells[i - 1] != "agg") {
            const long long v = parse_integer_cell(cells[i + 1], file, number, "iters");
            if (v >= 1) log.iterations = static_cast<int>(v);
          }
        }
      } else if (!cells.empty() && cells[0] == "Rank" && header_line != 0) {
        ++rank_lines;
      } else if (cells.size() >= 2 && cells[0] == "size" && cells[1] == "count") {
        columns_line = number;
        columns = cells;
        for (std::size_t i = 0; i < cells.size(); ++i) {
          if (cells[i] == "time" || cells[i] == "cputime") groups.push_back({i, 0, 0});
          if (cells[i] == "algbw" && !groups.empty()) groups.back().algbw = i;
          if (cells[i] == "busbw" && !groups.empty()) groups.back().busbw = i;
        }
        if (groups.empty() || groups.size() > 2 ||
            std::any_of(groups.begin(), groups.end(),
                        [](const Group& g) { return g.algbw == 0 || g.busbw == 0; })) {
          throw InputError(file, line_location(number),
                           "column header without time/algbw/busbw groups");
        }
      } else if (starts_with(line, "# Avg bus bandwidth")) {
        const auto colon = line.find(':');
        const auto value_cells =
            split_cells(colon == std::string::npos ? "" : line.substr(colon + 1));
        if (value_cells.empty()) {
          throw InputError(file, line_location(number), "\"# Avg bus bandwidth\" without a value");
        }
        log.avg_bus_bandwidth_Bps =
            parse_number_cell(value_cells[0], file, number, "average bus bandwidth") * 1e9;
        footer = true;
      }
      continue;
    }
    if (columns_line == 0 || footer) continue;
    const auto cells = split_cells(line);
    // Rows start with the size in bytes; anything else between header and footer (NCCL INFO
    // lines, mpirun chatter) is not part of the table.
    if (cells.empty() || !std::all_of(cells[0].begin(), cells[0].end(),
                                      [](char c) { return c >= '0' && c <= '9'; })) {
      continue;
    }
    if (cells.size() != columns.size()) {
      throw InputError(file, line_location(number),
                       fmt::format("table row has {} cells, the header at line {} has {} columns "
                                   "(truncated or damaged row?)",
                                   cells.size(), columns_line, columns.size()));
    }
    const double size =
        static_cast<double>(parse_integer_cell(cells[size_col], file, number, "size (B)"));
    for (std::size_t g = 0; g < groups.size(); ++g) {
      Record r;
      r.variant = g == 0 ? "out_of_place" : "in_place";
      r.size_bytes = size;
      r.time_s = parse_number_cell(cells[groups[g].time], file, number, "time (us)") * 1e-6;
      r.bandwidth_Bps =
          parse_number_cell(cells[groups[g].algbw], file, number, "algbw (GB/s)") * 1e9;
      r.bus_bandwidth_Bps =
          parse_number_cell(cells[groups[g].busbw], file, number, "busbw (GB/s)") * 1e9;
      r.source_file = file;
      r.source_line = number;
      log.records.push_back(std::move(r));
    }
    last_row_line = number;
  }

  if (header_line == 0) {
    throw InputError(file, "", "not nccl-tests output: no \"# nThread ... nGpus ...\" line");
  }
  if (columns_line == 0) {
    throw InputError(file, line_location(header_line),
                     "truncated nccl-tests log: no column header after the \"# nThread\" line");
  }
  if (!footer) {
    throw InputError(file, line_location(last_row_line == 0 ? columns_line : last_row_line),
                     "truncated nccl-tests log: no \"# Avg bus bandwidth\" footer after the table");
  }
  if (log.records.empty()) {
    throw InputError(file, line_location(columns_line), "nccl-tests table has no rows");
  }
  if (log.op.empty()) log.op = find_binary(basename_of(file));
  if (log.op.empty()) {
    std::string names;
    for (const auto& n : nccl_tests_binaries())
      names += (names.empty() ? "" : ", ") + n;
    throw InputError(file, "",
                     fmt::format("cannot tell which nccl-tests binary wrote this log: no command "
                                 "line in it and no binary name in the file name (one of {})",
                                 names));
  }
  log.ranks = rank_lines > 0 ? rank_lines : log.threads * log.gpus_per_thread;
  if (options.expected_gpu_count && log.ranks > *options.expected_gpu_count) {
    throw InputError(file, line_location(header_line),
                     fmt::format("the log ran on {} GPUs but the topology has {}", log.ranks,
                                 *options.expected_gpu_count));
  }
  for (auto& r : log.records) {
    r.kind = std::string(kind::nccl_prefix) + log.op;
    r.gpu_count = log.ranks;
    r.gpus_per_thread = log.gpus_per_thread;
    r.iterations = log.iterations;
  }
  return log;
}

NcclTestsLog import_nccl_tests_file(const std::string& path, const ImportOptions& options) {
  return import_nccl_tests(read_text_file(path), path, options);
}

}  // namespace linksim::calibrate
