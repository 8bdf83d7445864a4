// `linksim p2p` and `linksim bandwidth` take the CUDA samples' own options.
#include <gtest/gtest.h>

#include "calibrate/import_p2p_matrix.hpp"
#include "tests/support/temp_files.hpp"

namespace linksim {
namespace {

using testing::run_linksim;

TEST(CopyBenchCliTest, SampleOptionsAreAccepted) {
  const auto r = run_linksim("p2p -t rtx2080ti-2x --p2p_read --sm_copy --numElems=1000");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Unidirectional P2P=Enabled Bandwidth (P2P Reads) Matrix (GB/s)\n"),
            std::string::npos);
  EXPECT_NE(r.out.find("P2P=Enabled Latency (P2P Reads) Matrix (us)\n"), std::string::npos);
  // 1000 ints are 4000 bytes: staged, 14.3 us + 2 x 4000 B / 13.12 GB/s = 14.9098 us, so
  // 4000 B / 14.9098 us = 0.27 GB/s.
  EXPECT_NE(r.out.find("     0 492.80   0.27 \n"), std::string::npos) << r.out;
  const auto b = run_linksim("bandwidth -t rtx2080ti-2x --device=1 --htod --csv");
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_NE(b.out.find(" Device 1: RTX-2080-Ti\n"), std::string::npos);
  EXPECT_NE(b.out.find("bandwidthTest-H2D-Pinned, Bandwidth = 13.1 GB/s"), std::string::npos);
  EXPECT_EQ(b.out.find("D2H"), std::string::npos);
}

TEST(CopyBenchCliTest, BadSampleOptionsAreRefused) {
  struct Case {
    std::string args;
    std::string err;
  };
  const Case cases[] = {
      {"bandwidth -t rtx2080ti-2x --device=2",
       "/topologies/rtx2080ti-2x.json: device 2 does not exist: the machine has GPUs 0 to 1\n"},
      {"bandwidth -t rtx2080ti-2x --memory=pageable",
       "<input>: pageable memory transfers are not modelled; use pinned memory\n"},
      {"bandwidth -t rtx2080ti-2x --mode=range --start=1000",
       "<input>: range mode needs a start, an end and an increment size\n"},
      {"bandwidth -t rtx2080ti-2x --mode=range --start=9000 --end=1000 --increment=1",
       "<input>: range mode: the start size is greater than the end size\n"},
      {"bandwidth -t rtx2080ti-2x --mode=range --start=1 --end=4000000000 --increment=1",
       "<input>: range mode: more than 100000 sizes; take a larger increment\n"},
      {"p2p -t rtx2080ti-2x --numElems=-5",
       "<input>: numElems: expected a whole number from 1 to 4000000000, got \"-5\"\n"},
  };
  for (const auto& c : cases) {
    const auto r = run_linksim(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args;
    EXPECT_EQ(r.out, "") << c.args;
    ASSERT_GE(r.err.size(), c.err.size()) << r.err;
    EXPECT_EQ(r.err.substr(r.err.size() - c.err.size()), c.err) << c.args;
  }
}

TEST(CopyBenchCliTest, PrintoutReadsBackThroughTheImporter) {
  const auto r = run_linksim("p2p -t rtx2080ti-2x");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto records = calibrate::import_p2p_matrix(r.out, "p2p.txt");
  bool found = false;
  for (const auto& rec : records) {
    if (rec.kind == "p2p_uni" && rec.src_gpu == 0 && rec.dst_gpu == 1 && rec.p2p_enabled == false) {
      // The printed cell, 6.56 GB/s.
      EXPECT_DOUBLE_EQ(rec.bandwidth_Bps, 6.56e9);
      found = true;
    }
  }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace linksim
