// The CUDA samples' options (sim/app/copy_bench_options.hpp), read as the samples read them.
#include "sim/app/copy_bench_options.hpp"

#include <gtest/gtest.h>

#include "sim/core/error.hpp"
#include "sim/topo/loader.hpp"
#include "tests/support/temp_files.hpp"
#include "tests/support/thrown_message.hpp"

namespace linksim::app {
namespace {

template <typename F>
std::string error_of(F f) {
  return testing::thrown_message<InputError>(f);
}

TEST(CopyBenchOptionsTest, P2pRunsOnAtMost256Gpus) {
  // The benchmark's 4,096-GPU PCIe tree is refused, naming its file; a 64-GPU machine runs.
  const std::string big = testing::source_dir() + "/bench/machines/pcie-tree-4096.json";
  EXPECT_EQ(error_of([&] { check_p2p_test_machine(topo::load_topology(big)); }),
            big +
                ": pcie-tree-4096 has 4096 GPUs; p2p prints every pair of them and simulates "
                "machines of at most 256 GPUs (topo show summarizes larger ones)");
  const std::string small = testing::source_dir() + "/bench/machines/nvswitch-64.json";
  EXPECT_EQ(error_of([&] { check_p2p_test_machine(topo::load_topology(small)); }), "accepted");
}

TEST(CopyBenchOptionsTest, NumElemsCountsFourByteIntegers) {
  P2pTestArguments a;
  a.num_elems = "1000";
  // 1000 integers x 4 bytes = 4000 bytes a copy.
  EXPECT_EQ(p2p_test_options(a).copy_bytes, 4000.0);
  a.num_elems = "0";
  EXPECT_EQ(error_of([&] { p2p_test_options(a); }),
            "numElems: expected a whole number from 1 to 4000000000, got \"0\"");
}

TEST(CopyBenchOptionsTest, NoDirectionNamedMeansAllThree) {
  const topo::Topology machine = topo::load_topology("rtx2080ti-2x");
  BandwidthTestArguments a;
  report::BandwidthTestOptions o = bandwidth_test_options(a, machine);
  EXPECT_TRUE(o.htod && o.dtoh && o.dtod);
  a.dtoh = true;
  o = bandwidth_test_options(a, machine);
  EXPECT_FALSE(o.htod);
  EXPECT_TRUE(o.dtoh);
  EXPECT_FALSE(o.dtod);
}

TEST(CopyBenchOptionsTest, ADeviceTheMachineLacksIsRefused) {
  // rtx2080ti-2x has GPUs 0 and 1: device 2 does not exist; "all" is the cumulative figure.
  const topo::Topology machine = topo::load_topology("rtx2080ti-2x");
  BandwidthTestArguments a;
  a.device = "2";
  EXPECT_EQ(error_of([&] { bandwidth_test_options(a, machine); }),
            machine.file + ": device 2 does not exist: the machine has GPUs 0 to 1");
  a.device = "all";
  EXPECT_EQ(error_of([&] { bandwidth_test_options(a, machine); }), "accepted");
}

TEST(CopyBenchOptionsTest, ARangeIsCheckedBeforeAnyCopy) {
  const topo::Topology machine = topo::load_topology("rtx2080ti-2x");
  BandwidthTestArguments a;
  a.mode = "range";
  EXPECT_EQ(error_of([&] { bandwidth_test_options(a, machine); }),
            "range mode needs a start, an end and an increment size");
  // (200001 - 1) / 1 = 200000 sizes, over the 100000 allowed.
  a.start = "1";
  a.end = "200001";
  a.increment = "1";
  EXPECT_EQ(error_of([&] { bandwidth_test_options(a, machine); }),
            "range mode: more than 100000 sizes; take a larger increment");
  a.memory = "pageable";
  EXPECT_EQ(error_of([&] { bandwidth_test_options(a, machine); }),
            "pageable memory transfers are not modelled; use pinned memory");
}

}  // namespace
}  // namespace linksim::app
