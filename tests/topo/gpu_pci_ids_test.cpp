// The GPU PCI id table (sim/topo/gpu_pci_ids.hpp): every row names a catalog model, no id names
// two models, and the lookup reads NCCL's XML spelling in either case.
#include "sim/topo/gpu_pci_ids.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "sim/topo/gpu_model.hpp"

namespace linksim::topo {
namespace {

TEST(GpuPciIds, EveryRowNamesACatalogModelAndNoIdTwoModels) {
  std::set<std::string> ids;
  for (const GpuPciId& id : gpu_pci_ids()) {
    EXPECT_TRUE(find_gpu_model(id.model).has_value()) << id.model;
    EXPECT_TRUE(ids.insert(id.vendor + ":" + id.device).second) << id.vendor << ":" << id.device;
    EXPECT_EQ(id.vendor.size(), 6u) << id.vendor;  // "0x" and four hex digits
    EXPECT_EQ(id.device.size(), 6u) << id.device;
  }
}

TEST(GpuPciIds, LookupReadsEitherCase) {
  const auto a100 = find_gpu_pci_id("0x10DE", "0x20B0");
  ASSERT_TRUE(a100.has_value());
  EXPECT_EQ(a100->model, "A100-SXM4-40GB");
  EXPECT_EQ(a100->pci_ids_name, "GA100 [A100 SXM4 40GB]");
  EXPECT_FALSE(find_gpu_pci_id("0x10de", "0x20b7").has_value());  // not in the table
  EXPECT_FALSE(find_gpu_pci_id("0x1002", "0x20b0").has_value());  // AMD's vendor id
}

}  // namespace
}  // namespace linksim::topo
