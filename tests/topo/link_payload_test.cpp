#include "sim/topo/link_payload.hpp"

#include <gtest/gtest.h>

#include "sim/topo/loader.hpp"

namespace linksim::topo {
namespace {

TEST(LinkPayloadTest, PayloadRatesOfARoute) {
  const Topology t = load_topology("rtx2080ti-2x");
  const Router router(t);
  const auto gpus = t.nodes_of(NodeKind::gpu);
  const auto r = router.route(gpus[0], gpus[1]);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->transport, Transport::host_bounce);
  // PCIe 3.0 x16: 16 GB/s line rate x 0.82 payload = 13.12 GB/s on every leg of the bounce.
  EXPECT_DOUBLE_EQ(payload_bandwidth_Bps(t, *r), 16e9 * 0.82);

  const Topology a100 = load_topology("dgx-a100");
  const Router a100_router(a100);
  const auto g = a100.nodes_of(NodeKind::gpu);
  const auto nv = a100_router.route(g[0], g[1]);
  ASSERT_TRUE(nv);
  // 12 NVLink 3 links of 25 GB/s through the NVSwitches, NVLink 3's payload share: a DGX
  // A100 pair's typical copy, 242 GiB/s = 259.8 GB/s of the 300.
  EXPECT_NEAR(payload_bandwidth_Bps(a100, *nv), 242 * 1.073741824e9, 1e3);
}

}  // namespace
}  // namespace linksim::topo
