#pragma once
// The command line of an nccl-tests binary, read as its getopt_long reads it (nccl-tests
// src/common.cu main @a0b82b22): every flag, short and long, each taking one value;
// "-b8", "-b 8", "--minbytes 8", "--minbytes=8" and unambiguous long prefixes ("--minb 8")
// all mean the same, the last of a flag given twice wins, and "--" ends the flags.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace linksim::coll {

struct NcclTestsFlag {
  char short_name;
  std::string_view long_name;
  std::string_view meaning;  // as the binary's usage text puts it
};

// Every flag of nccl-tests 2.19.6, in its usage text's order (-h/--help is not among them).
const std::vector<NcclTestsFlag>& nccl_tests_flags();

// The values given, by short name; `help` when -h or --help came.
struct NcclTestsArgs {
  std::map<char, std::string> values;
  bool help = false;
};

// Reads `args` (the words after the binary's name). Throws InputError (file empty, location
// "nccl-tests argument N", counting from 1) for an unknown flag, an ambiguous long prefix, a
// flag without its value, or a word that is not a flag.
NcclTestsArgs parse_nccl_tests_args(const std::vector<std::string>& args);

// An integer value as strtol(value, NULL, 0) reads it (decimal, 0x hex, 0 octal, a sign),
// but whole: nullopt when anything but blanks is left over or no digit came.
std::optional<long long> parse_nccl_tests_integer(std::string_view text);

// The settings an nccl-tests binary runs with: its defaults (common.cu) where a flag was not
// given, and its own corrections (-I with -G off, -z 3 with -G off, ...), each stated in
// `notes`. Types and ops stay as given ("all" included); see nccl_tests_types/ops.
struct NcclTestsSettings {
  int threads = 1;          // -t
  int gpus_per_thread = 1;  // -g
  double min_bytes = 32.0 * 1024 * 1024;
  double max_bytes = 32.0 * 1024 * 1024;
  double step_bytes = 1024.0 * 1024;
  long long step_factor = 1;  // > 1: multiplicative
  int iters = 20;
  int agg_iters = 1;
  int warmup_iters = 1;
  int run_cycles = 1;
  int parallel_init = 0;
  int check = 1;
  std::string op = "sum";
  std::string datatype = "float";
  int root = 0;
  int blocking = 0;
  int stream_null = 0;
  int timeout_s = 0;
  int graph_launches = 0;
  int report_cputime = 0;
  int report_timestamps = 0;
  std::string output_file;
  bool output_file_given = false;  // -J was on the command line (its name may be "")
  int average = 1;
  int local_register = 0;
  int cta_policy = -1;
  int device_implementation = 0;
  int device_cta_count = 16;
  int memory_report = 0;
  int unalign = 0;
  int per_iter_timing = 0;
  int per_iter_skip = 0;
  // What the binary would have said about its settings, and what linksim accepts but does not
  // model, one line each.
  std::vector<std::string> notes;
};

// Throws InputError (location "nccl-tests -X") for a value the binary could not use: a size
// parsesize refuses, a number that is not an integer, an unknown data type or reduction, a
// count below its least (-t, -g, -n, -m 1; -w, -c, -G 0; -N 1: 0 would run forever), -a, -z
// outside 0..3, or -D without -R 2.
NcclTestsSettings read_nccl_tests_settings(const NcclTestsArgs& args);

// The data types and reductions a run covers, in the order the binaries loop over them: the
// one given, or every one for "all" (the fp8 types only on SM90 and newer, as common.cu
// filters them on older GPUs).
std::vector<std::string> nccl_tests_types(const std::string& datatype, bool fp8_supported);
std::vector<std::string> nccl_tests_ops(const std::string& op);

}  // namespace linksim::coll
