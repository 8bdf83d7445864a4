// nccl-tests' command line as its getopt_long reads it (src/common.cu main @a0b82b22).
#include "sim/coll/nccl_tests_options.hpp"

#include <gtest/gtest.h>

#include "sim/core/error.hpp"
#include "tests/support/thrown_message.hpp"

namespace linksim::coll {
namespace {

std::string error_of(const std::vector<std::string>& args) {
  return testing::thrown_message<InputError>(
      [&] { read_nccl_tests_settings(parse_nccl_tests_args(args)); });
}

TEST(NcclTestsOptionsTest, EveryFlagOfTheBinaryInItsOrder) {
  // The getopt string of common.cu, less h: "t:g:b:e:i:f:n:m:w:N:p:I:K:c:o:d:r:z:y:T:hG:C:a:R:
  // x:D:V:J:S:M:u:" has 31 flags with values.
  const auto& flags = nccl_tests_flags();
  ASSERT_EQ(flags.size(), 31u);
  std::string shorts;
  for (const auto& f : flags)
    shorts += f.short_name;
  EXPECT_EQ(shorts, "tgbeifnmwNpcodrzyTGCSJaRxDVMuIK");
  EXPECT_EQ(flags.front().long_name, "nthreads");
  EXPECT_EQ(flags.back().long_name, "per_iter_skip");
}

TEST(NcclTestsOptionsTest, ReadsEverySpellingGetoptLongDoes) {
  const auto a = parse_nccl_tests_args(
      {"-b8", "-e", "8G", "--stepfactor=2", "--iters", "50", "--minb", "16", "-g", "1", "-g", "8"});
  EXPECT_EQ(a.values.at('b'), "16");  // the later prefix form wins
  EXPECT_EQ(a.values.at('e'), "8G");
  EXPECT_EQ(a.values.at('f'), "2");
  EXPECT_EQ(a.values.at('n'), "50");
  EXPECT_EQ(a.values.at('g'), "8");
  // A value that looks like a flag is still the value: -r -1.
  EXPECT_EQ(parse_nccl_tests_args({"-r", "-1"}).values.at('r'), "-1");
  EXPECT_TRUE(parse_nccl_tests_args({"--he"}).help);
  EXPECT_TRUE(parse_nccl_tests_args({"-h"}).help);
}

TEST(NcclTestsOptionsTest, RefusesWhatTheBinaryCouldNotRead) {
  EXPECT_EQ(error_of({"-q", "1"}), "nccl-tests argument 1: unknown nccl-tests option \"-q\"");
  // --n could be --nthreads or --ngpus.
  EXPECT_EQ(error_of({"-b", "8", "--n", "2"}),
            "nccl-tests argument 3: option \"--n\" is ambiguous; possibilities: "
            "--nthreads --ngpus");
  EXPECT_EQ(error_of({"-e"}),
            "nccl-tests argument 1: option \"-e\" requires a value (largest size)");
  EXPECT_EQ(error_of({"8"}),
            "nccl-tests argument 1: unexpected argument \"8\"; "
            "nccl-tests takes only options");
  EXPECT_EQ(error_of({"-f", "1.5"}),
            "nccl-tests -f: expected an integer of at least 0, got \"1.5\"");
  EXPECT_EQ(error_of({"-d", "float9"}),
            "nccl-tests -d: unknown name \"float9\"; expected one of int8, uint8, "
            "int32, uint32, int64, uint64, half, float, double, bfloat16, f8e4m3, f8e5m2, all");
  // A value above the default bound is told the bound, not "at least 1".
  EXPECT_EQ(error_of({"-t", "99999999999"}),
            "nccl-tests -t: expected an integer from 1 to 1000000000, got \"99999999999\"");
  EXPECT_EQ(error_of({"-t", "0"}), "nccl-tests -t: expected an integer of at least 1, got \"0\"");
  EXPECT_EQ(error_of({"-z", "4"}), "nccl-tests -z: expected an integer from 0 to 3, got \"4\"");
  EXPECT_EQ(error_of({"-b", "1G", "-e", "1M"}),
            "nccl-tests -b: invalid sizes for 'minbytes' and 'maxbytes': 1073741824 "
            "> 1048576");
  // A size past 64 bits was printed as "maxBytes -9223372036854775808" and run.
  EXPECT_EQ(error_of({"-b", "8", "-e", "99999999999999999999"}),
            "nccl-tests -e: expected a size of at most 9223372036854775807 bytes, got "
            "\"99999999999999999999\"");
  // 9e9 GiB is 9.66e18 bytes.
  EXPECT_EQ(error_of({"-e", "9E9G"}),
            "nccl-tests -e: expected a size of at most 9223372036854775807 bytes, got "
            "\"9E9G\"");
  EXPECT_EQ(error_of({"-b", "18446744073709551616", "-e", "18446744073709551616"}),
            "nccl-tests -b: expected a size of at most 9223372036854775807 bytes, got "
            "\"18446744073709551616\"");
  EXPECT_EQ(read_nccl_tests_settings(parse_nccl_tests_args({"-e", "8E9"})).max_bytes, 8e9);
  EXPECT_EQ(error_of({"-D", "1"}),
            "nccl-tests -D: device implementation (-D > 0) requires enabling "
            "symmetric memory registration (-R 2)");
}

TEST(NcclTestsOptionsTest, DefaultsAndCorrectionsAreTheBinarysOwn) {
  const auto d = read_nccl_tests_settings(parse_nccl_tests_args({}));
  EXPECT_EQ(d.threads, 1);
  EXPECT_EQ(d.gpus_per_thread, 1);
  EXPECT_DOUBLE_EQ(d.min_bytes, 32.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(d.max_bytes, 32.0 * 1024 * 1024);
  EXPECT_EQ(d.iters, 20);
  EXPECT_EQ(d.check, 1);
  EXPECT_EQ(d.op, "sum");
  EXPECT_EQ(d.datatype, "float");
  EXPECT_EQ(d.root, 0);
  EXPECT_TRUE(d.notes.empty());
  // -I with -G: common.cu turns per-iteration timing off and says so; -a is read but every
  // simulated rank takes the same time.
  const auto s =
      read_nccl_tests_settings(parse_nccl_tests_args({"-I", "1", "-G", "4", "-a", "3", "-x", "1"}));
  EXPECT_EQ(s.per_iter_timing, 0);
  EXPECT_EQ(s.graph_launches, 4);
  ASSERT_EQ(s.notes.size(), 3u);
  EXPECT_EQ(s.notes[0],
            "per-iteration timing (-I) is incompatible with CUDA graph mode (-G). Disabling.");
  EXPECT_EQ(s.notes[1].substr(0, 4), "-a: ");
  EXPECT_EQ(s.notes[2].substr(0, 4), "-x: ");
  EXPECT_EQ(parse_nccl_tests_integer("0x10"), std::optional<long long>(16));
  EXPECT_EQ(parse_nccl_tests_integer("-1"), std::optional<long long>(-1));
  EXPECT_FALSE(parse_nccl_tests_integer("2.0").has_value());
}

TEST(NcclTestsOptionsTest, AllMeansEveryTypeAndReduction) {
  // common.cu's type list; the two fp8 types only on SM90 and newer.
  EXPECT_EQ(nccl_tests_types("all", true).size(), 12u);
  EXPECT_EQ(nccl_tests_types("all", false).size(), 10u);
  EXPECT_EQ(nccl_tests_types("half", false), std::vector<std::string>{"half"});
  EXPECT_EQ(nccl_tests_ops("all"),
            (std::vector<std::string>{"sum", "prod", "max", "min", "avg", "mulsum"}));
}

}  // namespace
}  // namespace linksim::coll
