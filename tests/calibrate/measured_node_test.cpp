// calibrate's one call from a measured node to its fitted machine (calibrate/measured_node.hpp).
#include "calibrate/measured_node.hpp"

#include <gtest/gtest.h>

#include "sim/topo/loader.hpp"
#include "tests/support/h200_device.hpp"

namespace linksim::calibrate {
namespace {

Record record(std::string_view kind, double size_bytes, double time_s) {
  Record r;
  r.kind = std::string(kind);
  r.variant = "pinned";
  r.src_gpu = 0;
  r.dst_gpu = 0;
  r.gpu_count = 1;
  r.size_bytes = size_bytes;
  r.time_s = time_s;
  r.bandwidth_Bps = size_bytes / time_s;
  r.source_file = "probe";
  return r;
}

TEST(MeasuredNode, TheGpuModelTakesItsFastestCopyAndItsGemmRate) {
  ProbeResult measured;
  const DeviceInfo d = h200_device();
  measured.devices = {d};
  for (double s : {65536.0, 1048576.0, 16777216.0})
    measured.records.push_back(record(kind::h2d, s, 5e-6 + s / 50e9));  // 5 us + s / 50 GB/s
  // Two device copies: 2 TB/s and 4 TB/s; the model keeps the faster, 4e12 B/s.
  measured.records.push_back(record(kind::d2d, 1 << 30, (1 << 30) / 2e12));
  measured.records.push_back(record(kind::d2d, 1 << 30, (1 << 30) / 4e12));
  Record gemm = record(kind::gemm, 0, 1);
  gemm.flops_per_s = 50e12;  // 50 TFLOP/s FP32
  measured.records.push_back(gemm);
  const FitMachineResult r =
      fit_measured_node(measured, std::nullopt, {"node.json", "node.measurements.json", ""});
  for (const auto& rec : r.records)
    EXPECT_EQ(rec.source_file, "node.measurements.json");
  const topo::Topology t = topo::parse_topology(r.document, "node.json");
  const topo::GpuModel& m = *t.node(t.nodes_of(topo::NodeKind::gpu).front()).gpu;
  EXPECT_EQ(m.hbm_bandwidth_Bps, 4e12);
  EXPECT_EQ(m.peak_flops.at("fp32"), 50e12);
}

}  // namespace
}  // namespace linksim::calibrate
