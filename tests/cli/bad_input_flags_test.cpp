// Bad command lines (issue 13): unknown commands and flags, values that do not parse, and
// values that parse but are out of range. Each exits 2 with one stderr line that names the
// flag or argument (its location) and what was expected, prints nothing on stdout and writes no
// output file.
#include <gtest/gtest.h>

#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "tests/support/temp_files.hpp"

namespace linksim {
namespace {

using testing::run_linksim;
using testing::shell_quote;
using testing::TempDir;

struct FlagCase {
  std::string name;
  std::string args;  // "{out}": an output path in a fresh folder; "{src}": the source tree
  std::string part;  // the flag or argument, and what was expected
};

const std::string kSweep = "nccl-tests --topology rtx2080ti-2x all_reduce_perf -g 2 -J {out} ";

std::vector<FlagCase> flag_cases() {
  return {
      {"unknown_command", "frobnicate", "unknown command \"frobnicate\""},
      {"missing_command", "", "A subcommand is required"},
      {"missing_topo_subcommand", "topo", "subcommand"},
      {"unknown_topo_subcommand", "topo bogus",
       "unknown command \"topo bogus\"; expected one of show, check, import, export, graphs, "
       "dot, list"},
      {"unknown_flag", "run default --bogus -o {out}", "--bogus"},
      {"missing_scenario", "run -o {out}", "scenario is required"},
      {"format_unknown", "run default --format xml -o {out}", "--format"},
      {"graph_without_topology",
       "run-graph {src}/scenarios/graphs/seed-gradient-pcie.json -o {out}", "--topology"},
      {"graph_rates_unknown",
       "run-graph {src}/scenarios/graphs/seed-gradient-pcie.json -t rtx2080ti-2x --rates fast -o "
       "{out}",
       "--rates"},
      {"machine_unknown", "run default -t no-such-machine -o {out}", "no-such-machine"},
      {"output_empty", "run seed-gradient-sync -o ''",
       "--output: expected a file name (or - for standard output), got an empty one"},
      {"trace_empty", "run default --trace '' -o {out}",
       "--trace: expected a file name (or - for standard output), got an empty one"},
      {"run_graph_output_empty",
       "run-graph {src}/scenarios/graphs/seed-gradient-pcie.json -t rtx4090-2x -o ''",
       "--output: expected a file name (or - for standard output), got an empty one"},
      {"trace_of_serving", "run llama3-8b-serving --trace {out}",
       "at --trace: this scenario kind records no trace"},
      {"nodes_fraction", "run default -t dgx-a100 --nodes 1.5 -o {out}",
       "--nodes: expected a whole number from 1 to 65536, got \"1.5\""},
      {"machine_twice", "compare default -t rtx2080ti-2x -t rtx2080ti-2x -o {out}", "named twice"},
      {"scenario_unknown", "run no-such-scenario -o {out}", "no-such-scenario"},
      {"fit_without_logs", "fit --topology rtx2080ti-2x -o {out}", "no logs given"},
      {"fit_log_missing", "fit --topology rtx2080ti-2x --p2p /nonexistent/p2p.txt -o {out}",
       "/nonexistent/p2p.txt"},
      {"import_gpu_unknown",
       "topo import {src}/tests/data/smi/rtx2080ti-2x.txt --gpu GTX-9999 -o {out}", "GTX-9999"},
      {"sweep_binary_unknown", "nccl-tests --topology rtx2080ti-2x bogus_perf -J {out}",
       "bogus_perf"},
      {"sweep_factor_nan", kSweep + "-f nan", "nccl-tests -f: expected an integer"},
      {"sweep_factor_inf", kSweep + "-f inf", "nccl-tests -f: expected an integer"},
      {"sweep_factor_fraction", kSweep + "-f 1.000001", "nccl-tests -f: expected an integer"},
      {"sweep_factor_word", kSweep + "-f fast", "got \"fast\""},
      {"sweep_step_tiny", kSweep + "-f 0 -i 1 -e 1G",
       "nccl-tests -i: the sweep from 33554432 to 1073741824 bytes would print more than 10000 "
       "rows; use a larger step"},
      {"sweep_minbytes_word", kSweep + "-b abc", "-b"},
      {"sweep_min_above_max", kSweep + "-b 1G -e 1M",
       "invalid sizes for 'minbytes' and 'maxbytes'"},
      {"sweep_gpus_too_many", kSweep + "-g 9", "-g"},
      {"sweep_root_beyond", "nccl-tests --topology rtx2080ti-2x broadcast_perf -g 2 -r 5 -J {out}",
       "-r"},
      {"sweep_iters_zero", kSweep + "-n 0", "-n"},
      {"sweep_datatype_unknown", kSweep + "-d float9", "float9"},
      {"sweep_algo_unknown", kSweep + "--algo Bogus", "Bogus"},
      {"sweep_proto_unknown", kSweep + "--proto Fast", "Fast"},
      {"sweep_option_unknown", kSweep + "--gpus-per-thread 3",
       "unknown nccl-tests option \"--gpus-per-thread\""},
      {"sweep_option_ambiguous", kSweep + "--n 3", "\"--n\" is ambiguous"},
      {"sweep_iters_word", kSweep + "-n many", "nccl-tests -n: expected an integer of at least 1"},
      // Whole-number options say what is wrong ("Value abc not in range 1 to 1024" before).
      {"jobs_word", "run seed-gradient-sync -j abc -o {out}",
       "--jobs: expected a whole number from 1 to 1024, got \"abc\""},
      {"jobs_fraction", "compare default -j 1.5 -o {out}",
       "--jobs: expected a whole number from 1 to 1024, got \"1.5\""},
      {"jobs_too_many", "plan default -j 1025 -o {out}",
       "--jobs: expected a whole number from 1 to 1024, got \"1025\""},
      {"plan_top_zero", "plan default --top 0 -o {out}",
       "--top: expected a whole number from 1 to 1000, got \"0\""},
      {"plan_max_plans_fraction", "plan default --max-plans 2.5 -o {out}",
       "--max-plans: expected a whole number from 1 to 4096, got \"2.5\""},
      {"sweep_jobs_word", kSweep + "--jobs many",
       "--jobs: expected a whole number from 1 to 1024, got \"many\""},
  };
}

// gtest prints a failing case by its name.
void PrintTo(const FlagCase& c, std::ostream* os) {
  *os << c.name;
}

class BadFlag : public ::testing::TestWithParam<FlagCase> {};

TEST_P(BadFlag, ExitsTwoWithOneLineNamingTheFlag) {
  const FlagCase& c = GetParam();
  TempDir dir;
  const std::string out = dir.path() + "/out.json";
  std::string args = c.args;
  if (const auto at = args.find("{out}"); at != std::string::npos) {
    args.replace(at, 5, shell_quote(out));
  }
  if (const auto at = args.find("{src}"); at != std::string::npos) {
    args.replace(at, 5, shell_quote(testing::source_dir()));
  }
  const auto r = run_linksim(args);
  EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.rfind("linksim: error: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(c.part), std::string::npos) << "expected " << c.part << "\n" << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "not one line:\n" << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
}

INSTANTIATE_TEST_SUITE_P(Flags, BadFlag, ::testing::ValuesIn(flag_cases()),
                         [](const ::testing::TestParamInfo<FlagCase>& param) {
                           return param.param.name;
                         });

// The whole line, for flags whose error used to name nothing or to be missing.
std::string whole_error(const std::string& args) {
  const auto r = run_linksim(args);
  EXPECT_EQ(r.exit_code, 2) << args;
  EXPECT_EQ(r.out, "") << args;
  return r.err;
}

TEST(BadFlagWhole, AnEmptyNcclVersionIsRefused) {
  // --nccl-version '' used to run as no --nccl-version at all: the modelled release, 2.30.7.
  EXPECT_EQ(whole_error("nccl-tests --topology rtx2080ti-2x --nccl-version '' all_reduce_perf "
                        "-g 2"),
            "linksim: error: --nccl-version: \"\" is not an NCCL release; expected "
            "MAJOR.MINOR.PATCH such as 2.18.5, or its NCCL_VERSION_CODE such as 21805, from 2.9.0 "
            "on (see linksim --help)\n");
  EXPECT_EQ(whole_error("nccl-tests --topology rtx2080ti-2x --nccl-version 2.8.4 all_reduce_perf "
                        "-g 2"),
            "linksim: error: --nccl-version: \"2.8.4\" is not an NCCL release; expected "
            "MAJOR.MINOR.PATCH such as 2.18.5, or its NCCL_VERSION_CODE such as 21805, from 2.9.0 "
            "on (see linksim --help)\n");
}

TEST(BadFlagWhole, ASweepTooFineOrEmptyNamesTheNcclTestsFlag) {
  // The sweep's own names ("step size: ...") used to stand where the flag the user gave goes.
  EXPECT_EQ(whole_error("nccl-tests --topology rtx2080ti-2x all_reduce_perf -g 2 -b 8 -e 64M -i 1"),
            "linksim: error: nccl-tests -i: the sweep from 8 to 67108864 bytes would print more "
            "than 10000 rows; use a larger step\n");
  EXPECT_EQ(
      whole_error("nccl-tests --topology rtx2080ti-2x all_reduce_perf -g 2 -b 8 -e 64 -f 1 -i 0"),
      "linksim: error: nccl-tests -i: expected a step above 0 bytes, got 0\n");
}

}  // namespace
}  // namespace linksim
