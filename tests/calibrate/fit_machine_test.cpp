// `linksim fit` end to end on the 2x RTX 2080 Ti logs and machine.
#include "calibrate/fit_machine.hpp"

#include <gtest/gtest.h>

#include "calibrate/measurements_json.hpp"
#include "calibrate/node_skeleton.hpp"
#include "calibrate/probe.hpp"
#include "sim/core/error.hpp"
#include "sim/core/units.hpp"
#include "sim/topo/loader.hpp"
#include "tests/support/h200_device.hpp"
#include "tests/support/temp_files.hpp"

namespace linksim::calibrate {
namespace {

std::string data(const std::string& name) {
  return linksim::testing::source_dir() + "/tests/data/calibrate/" + name;
}

FitMachineOptions rtx2080ti_options() {
  FitMachineOptions o;
  o.topology = "rtx2080ti-2x";
  o.date = "2024-07-01";
  o.logs = {{LogFormat::bandwidth_test, data("rtx2080ti-2x-bandwidthTest.txt")},
            {LogFormat::p2p_matrix, data("rtx2080ti-2x-p2p.txt")},
            {LogFormat::nccl_tests, data("rtx2080ti-2x-all_reduce_perf.txt")}};
  return o;
}

const Json* find_link(const Json& doc, const std::string& a, const std::string& b) {
  for (const auto& l : doc["links"]) {
    if (l.value("a", "") == a && l.value("b", "") == b && !l.contains("for")) return &l;
  }
  return nullptr;
}

TEST(FitMachine, Calibrates2080TiLinks) {
  const auto r = fit_machine(rtx2080ti_options());
  // Series: h2d gpu0, d2h gpu0, p2p_uni both ways, p2p_bidi both ways (all P2P off: the pair
  // cannot access its peer, so "P2P=Enabled" matrices join the P2P=off series).
  ASSERT_EQ(r.series.size(), 6u);
  // Sorted by key: d2h before h2d.
  EXPECT_EQ(describe(r.series[1].key), "h2d gpu0");
  EXPECT_DOUBLE_EQ(r.series[1].fit.bandwidth_Bps, 12.2e9);
  // The gpu{g}-plx0 loop has different figures per GPU now, so it is written out per link.
  const Json* g0 = find_link(r.document, "gpu0", "plx0");
  const Json* g1 = find_link(r.document, "gpu1", "plx0");
  ASSERT_NE(g0, nullptr);
  ASSERT_NE(g1, nullptr);
  // gpu0-plx0 carries D2H at 13.2 GB/s, the largest rate seen through it.
  EXPECT_EQ((*g0)["bandwidth"], "13.2 GB/s");
  EXPECT_EQ((*g0)["basis"], "effective");
  EXPECT_NE((*g0)["source"].get<std::string>().find("d2h gpu0"), std::string::npos);
  // gpu1-plx0 only carries the peer copies staged through host memory, which time the driver's
  // staging rather than any link: it keeps its datasheet figures.
  EXPECT_FALSE(g1->contains("bandwidth"));
  EXPECT_FALSE(g1->contains("latency"));
  EXPECT_FALSE(g1->contains("basis"));
  // A one-size series (bandwidthTest) has no interval, so no link carries a range here.
  EXPECT_FALSE(g0->contains("bandwidth_range"));
  // The collective corrections carry 95% intervals around them.
  const Json& all_reduce = r.document["collective_calibration"]["by_op"]["all_reduce"];
  ASSERT_TRUE(all_reduce.contains("bandwidth_scale_range"));
  ASSERT_TRUE(all_reduce.contains("latency_scale_range"));
  const double scale = all_reduce["bandwidth_scale"].get<double>();
  EXPECT_LT(all_reduce["bandwidth_scale_range"][0].get<double>(), scale);
  EXPECT_GT(all_reduce["bandwidth_scale_range"][1].get<double>(), scale);
  // Provenance: the three logs in sources, the date, and the collective corrections fitted from
  // the nccl-tests log.
  const std::string dumped = r.document.dump();
  EXPECT_NE(dumped.find("rtx2080ti-2x-p2p.txt"), std::string::npos);
  EXPECT_NE(dumped.find("on 2024-07-01"), std::string::npos);
  EXPECT_NE(dumped.find("\"collective_calibration\""), std::string::npos);
  // After fitting, H2D's prediction (13.2 GB/s on every hop) is 8.2% fast:
  // t = 32e6/13.2e9 + 2 hops of latency vs measured 32e6/12.2e9: (1/13.2)/(1/12.2) - 1 = -7.6%,
  // plus the two hops' latency. D2H is matched up to latency.
  bool saw_h2d = false;
  for (const auto& row : r.rows) {
    if (row.measurement == "h2d gpu0 pinned") {
      saw_h2d = true;
      ASSERT_TRUE(row.after_s.has_value());
      EXPECT_LT(*row.after_s, row.measured_s);
    }
    if (row.measurement.rfind("p2p_uni", 0) == 0) {
      EXPECT_EQ(row.status, "reported (staged through host memory: bounds its links, fits none)");
    }
    if (row.measurement.rfind("nccl:", 0) == 0) {
      EXPECT_EQ(row.status, "fitted (collective)");
      EXPECT_TRUE(row.before_s.has_value());
      EXPECT_TRUE(row.after_s.has_value());
    }
  }
  EXPECT_TRUE(saw_h2d);
  // The written machine loads.
  EXPECT_NO_THROW(topo::parse_topology(r.document, "calibrated.json"));
  const std::string report = format_fit_report(r);
  EXPECT_NE(report.find("collective model fitted through the simulator"), std::string::npos)
      << report;
}

TEST(FitMachine, SameInputsGiveIdenticalBytes) {
  const auto a = serialize_document(fit_machine(rtx2080ti_options()).document);
  const auto b = serialize_document(fit_machine(rtx2080ti_options()).document);
  EXPECT_EQ(a, b);
}

TEST(FitMachine, ALogForAnotherMachineIsRejected) {
  FitMachineOptions o;
  o.topology = "rtx2080ti-2x";
  o.logs = {{LogFormat::p2p_matrix, data("rtx4090-3x-p2p-bidirectional.txt")}};
  EXPECT_THROW(fit_machine(o), InputError);
}

TEST(Probe, RecordedProbeReplaysThePlanAndSkeletonLoads) {
  const DeviceInfo d = h200_device();
  std::vector<Record> recs;
  for (double s : {65536.0, 1048576.0, 16777216.0, 67108864.0}) {
    Record r;
    r.kind = "h2d";
    r.variant = "pinned";
    r.dst_gpu = 0;
    r.gpu_count = 1;
    r.size_bytes = s;
    r.time_s = 5e-6 + s / 50e9;  // alpha 5 us, beta 50 GB/s
    r.source_file = "recorded";
    recs.push_back(r);
  }
  RecordedProbe probe({d}, recs);
  // The quick plan is 64 KiB, 1 MiB, 16 MiB (x16 up to 64 MiB): the 64 MiB record is not in it.
  const auto result = probe.run(default_plan(/*quick=*/true));
  EXPECT_EQ(result.records.size(), 3u);
  ASSERT_EQ(result.notes.size(), 1u);
  EXPECT_EQ(result.notes[0], "1 GPU: no peer links to measure");
  // Round trip through the measurements file.
  const auto back = measurements_from_json(measurements_to_json(result, ""), "m.json");
  EXPECT_EQ(back.records.size(), 3u);
  EXPECT_EQ(back.devices[0].name, "NVIDIA H200");
  // Skeleton + fit: one GPU on a PCIe 5.0 x16 link to cpu0; the fitted H2D is 50 GB/s.
  SkeletonInputs in;
  in.devices = result.devices;
  FitMachineOptions o;
  o.topology = "node.json";
  o.topology_document = node_skeleton(in);
  o.extra_records = result.records;
  const auto fitted = fit_machine(o);
  ASSERT_EQ(fitted.series.size(), 1u);
  EXPECT_NEAR(fitted.series[0].fit.bandwidth_Bps, 50e9, 1);
  EXPECT_NEAR(fitted.series[0].fit.latency_s, 5e-6, 1e-12);
  const Json* link = find_link(fitted.document, "gpu0", "cpu0");
  ASSERT_NE(link, nullptr);
  EXPECT_EQ((*link)["bandwidth"], "50 GB/s");
  EXPECT_EQ((*link)["latency"], "5 us");  // alpha over the route's one channel
  // Exact data leave no residual, so the 95% intervals collapse onto the figures.
  EXPECT_EQ((*link)["bandwidth_range"], Json::array({"50 GB/s", "50 GB/s"}));
  EXPECT_EQ((*link)["latency_range"], Json::array({"5 us", "5 us"}));
}

// The probe's NCCL records say how they were timed (one thread for every GPU, one operation per
// timing), and the measurements file keeps it for a later `linksim fit`.
TEST(Probe, MeasurementsKeepHowNcclRecordsWereTimed) {
  ProbeResult result;
  Record r;
  r.kind = "nccl:all_reduce_perf";
  r.variant = "out_of_place";
  r.gpu_count = 8;
  r.gpus_per_thread = 8;
  r.iterations = 1;
  r.size_bytes = 1024;
  r.time_s = 50e-6;
  result.records.push_back(r);
  const auto back = measurements_from_json(measurements_to_json(result, ""), "m.json");
  ASSERT_EQ(back.records.size(), 1u);
  EXPECT_EQ(back.records[0].gpus_per_thread, 8);
  EXPECT_EQ(back.records[0].iterations, 1);
}

TEST(FitCli, WritesRefusesOverwriteAndReports) {
  linksim::testing::TempDir dir;
  const std::string out = dir.path() + "/cal.json";
  const std::string args = "fit --topology rtx2080ti-2x --bandwidth-test " +
                           data("rtx2080ti-2x-bandwidthTest.txt") + " --p2p " +
                           data("rtx2080ti-2x-p2p.txt") + " --nccl-tests " +
                           data("rtx2080ti-2x-broadcast_perf.txt") + " -o " + out;
  const auto first = linksim::testing::run_linksim(args);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE(first.out.find("collective model fitted through the simulator"), std::string::npos);
  EXPECT_NE(first.out.find("h2d gpu0"), std::string::npos);
  const auto again = linksim::testing::run_linksim(args);
  EXPECT_EQ(again.exit_code, 2);
  const auto forced = linksim::testing::run_linksim(args + " --force");
  EXPECT_EQ(forced.exit_code, 0) << forced.err;
  const auto topo_check = linksim::testing::run_linksim("topo check " + out);
  EXPECT_EQ(topo_check.exit_code, 0) << topo_check.err << topo_check.out;
  // Predictions on the calibrated machine carry the fit's range.
  const auto sweep = linksim::testing::run_linksim("nccl-tests --topology " + out +
                                                   " broadcast_perf -b 1M -e 1M -g 2");
  ASSERT_EQ(sweep.exit_code, 0) << sweep.err;
  // On stderr: nccl-tests' own output carries no such lines.
  EXPECT_NE(sweep.err.find("# linksim: calibrated machine; busbw (GB/s) with every fitted figure "
                           "at its 95% bounds"),
            std::string::npos)
      << sweep.err;
  const auto job = linksim::testing::run_linksim("run seed-gradient-sync --topology " + out);
  ASSERT_EQ(job.exit_code, 0) << job.err;
  EXPECT_NE(job.out.find("calibrated range: simulated step"), std::string::npos) << job.out;
}

TEST(CalibrateCli, ExitsTwoWithoutAGpu) {
  linksim::testing::TempDir dir;
  const auto r = linksim::testing::run_linksim("calibrate -o " + dir.path() + "/node.json");
  // This machine has no GPU: built without CUDA, or the runtime finds no device.
  EXPECT_EQ(r.exit_code, 2);
  const bool clear = r.err.find("built without CUDA") != std::string::npos ||
                     r.err.find("no CUDA device found") != std::string::npos;
  EXPECT_TRUE(clear) << r.err;
}

}  // namespace
}  // namespace linksim::calibrate
