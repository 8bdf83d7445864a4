#include "sim/core/units.hpp"

#include <gtest/gtest.h>

namespace linksim::units {
namespace {

TEST(UnitsTest, ParsesBandwidthsWithDecimalAndBinaryPrefixes) {
  EXPECT_DOUBLE_EQ(*parse_bandwidth_Bps("25 GB/s"), 25e9);
  // 200 Gb/s = 200e9 bits / 8 = 25e9 bytes per second.
  EXPECT_DOUBLE_EQ(*parse_bandwidth_Bps("200 Gb/s"), 25e9);
  EXPECT_DOUBLE_EQ(*parse_bandwidth_Bps("400Gbps"), 50e9);
  // 1 GiB/s = 1024^3 = 1073741824 B/s.
  EXPECT_DOUBLE_EQ(*parse_bandwidth_Bps("1 GiB/s"), 1073741824.0);
  EXPECT_FALSE(parse_bandwidth_Bps("25 GBs").has_value());
  EXPECT_FALSE(parse_bandwidth_Bps("25").has_value());
  EXPECT_FALSE(parse_bandwidth_Bps("fast").has_value());
}

TEST(UnitsTest, ParsesTimesAndSizes) {
  EXPECT_DOUBLE_EQ(*parse_time_s("1.2 us"), 1.2e-6);
  EXPECT_DOUBLE_EQ(*parse_time_s("500 ns"), 500e-9);
  EXPECT_DOUBLE_EQ(*parse_time_s("3 ms"), 3e-3);
  // 80 GiB = 80 * 1024^3 = 85899345920 bytes.
  EXPECT_DOUBLE_EQ(*parse_bytes("80 GiB"), 85899345920.0);
  EXPECT_DOUBLE_EQ(*parse_bytes("10 GB"), 10e9);
  EXPECT_FALSE(parse_time_s("1.2 parsecs").has_value());
}

TEST(UnitsTest, FormatsHumanUnits) {
  EXPECT_EQ(format_bandwidth(450e9), "450 GB/s");
  EXPECT_EQ(format_bandwidth(31.5e9), "31.5 GB/s");
  EXPECT_EQ(format_bandwidth(1.26e12), "1.26 TB/s");
  EXPECT_EQ(format_time(1.2e-6), "1.2 us");
  // 0.3125 s = 312.5 ms, shown to three significant digits.
  EXPECT_EQ(format_time(0.3125), "312 ms");
  EXPECT_EQ(format_bytes_binary(85899345920.0), "80 GiB");
}

TEST(UnitsTest, ExactRoundTripsDoubles) {
  // 0.1 + 0.2 is not 0.3 in binary; the shortest exact form shows it.
  EXPECT_EQ(exact(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(exact(0.3125), "0.3125");
}

}  // namespace
}  // namespace linksim::units
