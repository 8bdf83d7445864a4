// p2p and bandwidth for programs (sim/report/copy_bench_data.hpp): the same figures as the
// samples' printouts, at full precision.
#include "sim/report/copy_bench_data.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "sim/topo/loader.hpp"

namespace linksim::report {
namespace {

TEST(CopyBenchDataTest, P2pJsonCarriesThePrintedMatricesAtFullPrecision) {
  const topo::Topology t = topo::load_topology("rtx4090-2x");
  const auto j = nlohmann::json::parse(p2p_test_json(t));
  EXPECT_EQ(j["gpus"].size(), 2u);
  // Two PCIe cards without peer access: the connectivity matrix is the identity.
  EXPECT_EQ(j["peer_access"], nlohmann::json::parse("[[true,false],[false,true]]"));
  // Every off-diagonal one-way cell, rounded as the sample's "%6.02f" rounds it, is the cell
  // the printout shows.
  const std::string table = format_p2p_test(t);
  for (const char* run : {"p2p_disabled", "p2p_enabled"}) {
    const double Bps = j[run]["unidirectional_Bps"][0][1].get<double>();
    EXPECT_GT(Bps, 1e9);
    EXPECT_NE(table.find(fmt::format("{:6.02f}", Bps / 1e9)), std::string::npos) << run;
  }
}

TEST(CopyBenchDataTest, P2pCsvHasOneRowPerCell) {
  // 2 runs x 4 matrices (one way, both ways, latency, CPU latency) x 2 x 2 cells, plus a header.
  const std::string csv = p2p_test_csv(topo::load_topology("rtx4090-2x"));
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 2 * 4 * 4);
  EXPECT_TRUE(csv.starts_with("matrix,src,dst,value\np2p_disabled.unidirectional_Bps,0,0,"));
}

TEST(CopyBenchDataTest, BandwidthJsonSumsTheDevicesLikeTheCumulativePrintout) {
  const topo::Topology t = topo::load_topology("dgx-a100");
  BandwidthTestOptions one;
  one.htod = true;
  one.dtoh = one.dtod = false;
  BandwidthTestOptions all = one;
  all.device.reset();
  const auto j1 = nlohmann::json::parse(bandwidth_test_json(t, one));
  const auto j8 = nlohmann::json::parse(bandwidth_test_json(t, all));
  ASSERT_EQ(j1["results"].size(), 1u);  // quick mode: one 32 MB size
  EXPECT_EQ(j1["results"][0]["size_bytes"].get<double>(), 32e6);
  EXPECT_EQ(j8["devices"].size(), 8u);
  // dgx-a100's eight GPUs sit alike (two per PCIe switch, one host path each), so the
  // cumulative figure is 8 times device 0's.
  EXPECT_NEAR(j8["results"][0]["bandwidth_Bps"].get<double>(),
              8 * j1["results"][0]["bandwidth_Bps"].get<double>(), 1e-3);
}

}  // namespace
}  // namespace linksim::report
