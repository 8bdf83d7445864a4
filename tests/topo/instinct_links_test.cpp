// xgmi links between GPUs: AMD Instinct's Infinity Fabric joins GPUs; any other GPU is refused,
// as is an xgmi link between a GPU and a CPU.
#include <gtest/gtest.h>

#include <string>

#include "sim/core/error.hpp"
#include "sim/topo/loader.hpp"
#include "sim/topo/routing.hpp"
#include "tests/support/temp_files.hpp"
#include "tests/support/thrown_message.hpp"

namespace linksim::topo {
namespace {

using linksim::testing::TempDir;

// Two GPUs of `model` on one CPU over PCIe 5.0, and an xgmi link from `a` to `b`.
std::string doc(const std::string& model, const std::string& a, const std::string& b) {
  Json d = {{"title", "t"}};
  d["nodes"] = {{{"id", "gpu"}, {"kind", "gpu"}, {"count", 2}, {"model", model}},
                {{"id", "cpu0"}, {"kind", "cpu"}, {"vendor", "amd"}}};
  d["links"] = {{{"for", {{"g", "0..1"}}},
                 {"a", "gpu{g}"},
                 {"b", "cpu0"},
                 {"kind", "pcie"},
                 {"generation", 5}},
                {{"a", a}, {"b", b}, {"kind", "xgmi"}, {"generation", 3}}};
  return d.dump();
}

std::string load_error(const std::string& path) {
  return testing::thrown_message<InputError>([&] { load_topology(path); });
}

TEST(InstinctLinksTest, TwoMi300xJoinDirectlyOverXgmi) {
  TempDir dir;
  const Topology t = load_topology(dir.write("m.json", doc("MI300X", "gpu0", "gpu1")));
  const Router r(t);
  const auto route = r.route(0, 1);
  // The direct xGMI 3 link (64 GB/s) beats the host path (two PCIe 5.0 hops of 64 GB/s).
  ASSERT_EQ(route->paths.size(), 1u);
  EXPECT_EQ(route->paths.front().channels.size(), 1u);
  EXPECT_DOUBLE_EQ(route->bandwidth_Bps(), 64e9);
}

TEST(InstinctLinksTest, NvidiaGpusCannotJoinOverXgmi) {
  TempDir dir;
  const std::string path = dir.write("h.json", doc("H100-PCIE-80GB", "gpu0", "gpu1"));
  EXPECT_EQ(load_error(path), path +
                                  ": at /links/1: a xgmi link cannot join gpu0 (gpu) and gpu1 "
                                  "(gpu): xGMI joins two cpu nodes, or two AMD Instinct GPUs "
                                  "(architecture cdna...)");
}

TEST(InstinctLinksTest, AnInstinctGpuCannotJoinACpuOverXgmi) {
  TempDir dir;
  const std::string path = dir.write("c.json", doc("MI300X", "gpu0", "cpu0"));
  EXPECT_EQ(load_error(path), path +
                                  ": at /links/1: a xgmi link cannot join gpu0 (gpu) and cpu0 "
                                  "(cpu): xGMI joins two cpu nodes, or two AMD Instinct GPUs "
                                  "(architecture cdna...)");
}

}  // namespace
}  // namespace linksim::topo
