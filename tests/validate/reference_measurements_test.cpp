// The reference-measurement loader (validate/reference_measurements.*): which records it keeps,
// their figures in SI units, and errors that name the file and the record.
#include "validate/reference_measurements.hpp"

#include <gtest/gtest.h>

#include "sim/core/error.hpp"
#include "tests/support/temp_files.hpp"

namespace linksim::validate {
namespace {

TEST(ReferenceMeasurementsTest, KeepsNcclTestsRecordsWithABusbwInFileOrder) {
  const testing::TempDir dir;
  const std::string path = dir.write("m.json", R"([
    {"machine": "box A", "test": "nccl-tests", "op": "all_reduce_perf", "size_bytes": 1024,
     "busbw_GBps": 1.5, "source_url": "https://a"},
    {"machine": "box A", "test": "bandwidthTest", "op": "all_reduce_perf", "size_bytes": 8,
     "busbw_GBps": 9.0},
    {"machine": "box A", "test": "nccl-tests", "op": "all_reduce_perf", "size_bytes": 8,
     "busbw_GBps": null},
    {"machine": "box A", "test": "nccl-tests", "op": "bogus_perf", "size_bytes": 8,
     "busbw_GBps": 2.0},
    {"machine": "box B", "test": "nccl-tests", "op": "broadcast_perf", "size_bytes": 2048,
     "busbw_GBps": 0.25}])");
  const std::vector<NcclTestsRecord> records = load_nccl_tests_records(path);
  // Kept: the first and the last. Skipped: another tool, a null busbw, an unknown operation.
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].machine, "box A");
  EXPECT_EQ(records[0].op, coll::Op::all_reduce);
  EXPECT_EQ(records[0].size_bytes, 1024.0);
  EXPECT_EQ(records[0].busbw_Bps, 1.5e9);  // 1.5 GB/s
  EXPECT_EQ(records[0].source_url, "https://a");
  EXPECT_EQ(records[1].machine, "box B");
  EXPECT_EQ(records[1].op, coll::Op::broadcast);
  EXPECT_EQ(records[1].busbw_Bps, 0.25e9);  // 0.25 GB/s
  EXPECT_EQ(records[1].source_url, "");
}

TEST(ReferenceMeasurementsTest, AKeptRecordWithoutASizeNamesFileAndRecord) {
  const testing::TempDir dir;
  const std::string path = dir.write("m.json", R"([
    {"test": "vendor_spec"},
    {"machine": "box", "test": "nccl-tests", "op": "all_reduce_perf", "size_bytes": "big",
     "busbw_GBps": 1.0}])");
  try {
    load_nccl_tests_records(path);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_EQ(e.location(), "/1/size_bytes");
    EXPECT_NE(e.message().find("number"), std::string::npos) << e.what();
  }
}

TEST(ReferenceMeasurementsTest, AMissingFileIsAnInputError) {
  EXPECT_THROW(load_nccl_tests_records("/nonexistent/measurements.json"), InputError);
}

TEST(ReferenceMeasurementsTest, TheShippedSetHoldsTheSweepsAccuracyUses) {
  // docs/ACCURACY.md's sweeps: 24 A100 all_reduce sizes (1 KiB .. 8 GiB) and 28 2080 Ti runs.
  int a100 = 0;
  int rtx = 0;
  for (const auto& r : load_nccl_tests_records(default_measurements_path())) {
    a100 += r.machine.rfind("Azure ND A100 v4", 0) == 0 ? 1 : 0;
    rtx += r.machine.rfind("2x RTX 2080 Ti", 0) == 0 ? 1 : 0;
  }
  EXPECT_EQ(a100, 24);
  EXPECT_EQ(rtx, 28);
}

}  // namespace
}  // namespace linksim::validate
