// nvbandwidth's printout byte for byte. The expected text is written here with the tool's own
// iostream statements, transcribed from NVIDIA/nvbandwidth v0.8 (commit 66746a3):
//   output.cpp: Output::addVersionInfo(), addCudaAndDriverInfo(), printGPUs() and
//     getDeviceDisplayInfo(), addTestcase(), addTestcaseResults(), listTestcases(), printInfo();
//   inline_common.h: operator<<(std::ostream&, const PeerValueMatrix<T>&);
//   json_output.cpp with json/jsoncpp.cpp (jsoncpp 1.9.5): JsonOutput::addTestcaseResults(),
//     recordDevices(), print() and Value::toStyledString().
#include "sim/report/nvbandwidth_table.hpp"

#include <gtest/gtest.h>

#include <iomanip>
#include <limits>
#include <sstream>

#include "sim/report/nvbandwidth_json.hpp"
#include "sim/topo/loader.hpp"

namespace linksim::report {
namespace {

// operator<< for PeerValueMatrix<double>, on a stream already set to std::fixed and
// std::setprecision(2) as addTestcaseResults() sets it; verbose off.
std::string tool_matrix(const coll::NvbMatrix& m) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(2);
  double sum = 0;
  int columnIdWidth = 2;
  for (int i = 0; i < columnIdWidth; i++)
    o << " ";
  for (int currentDevice = 0; currentDevice < m.columns; currentDevice++)
    o << std::setw(10) << currentDevice;
  o << std::endl;
  for (int currentDevice = 0; currentDevice < m.rows; currentDevice++) {
    o << std::setw(2) << currentDevice;
    for (int peer = 0; peer < m.columns; peer++) {
      std::optional<double> val = m.at(currentDevice, peer);
      if (val) {
        o << std::setw(10) << val.value();
      } else {
        o << std::setw(10) << "N/A";
      }
      sum += val.value_or(0.0);
    }
    o << std::endl;
  }
  o << std::endl;
  o << "SUM " << m.key << " " << sum << std::endl;
  return o.str();
}

TEST(NvbandwidthTableTest, MatrixIsOperatorShiftsLayout) {
  coll::NvbMatrix m{"device_to_device_memcpy_read_ce", "", 3, 3, {}};
  m.cells_GBps = {std::nullopt, 276.07,     1234.567, 0.004,       std::nullopt,
                  5.0,          12345678.9, 1.5,      std::nullopt};
  const std::string got = format_nvbandwidth_matrix(m, false, false);
  EXPECT_EQ(got, tool_matrix(m));
  // The same, written out: column ids and cells right-aligned in 10, row ids in 2.
  EXPECT_EQ(got,
            "           0         1         2\n"
            " 0       N/A    276.07   1234.57\n"
            " 1      0.00       N/A      5.00\n"
            " 212345678.90      1.50       N/A\n"
            "\n"
            "SUM device_to_device_memcpy_read_ce 12347196.04\n");
}

TEST(NvbandwidthTableTest, PerfAndVerboseLines) {
  coll::NvbMatrix m{"host_to_device_memcpy_ce", "", 1, 2, {}};
  m.cells_GBps = {26.0, std::nullopt};
  const std::string got = format_nvbandwidth_matrix(m, true, true);
  // getUnitString(BANDWIDTH) is " +GB/s"; MIN counts N/A as 0; AVG is over the cells above 0.
  EXPECT_NE(got.find("\n&&&& PERF host_to_device_memcpy_ce 26.00 +GB/s\n"), std::string::npos);
  EXPECT_NE(got.find("\nMIN host_to_device_memcpy_ce 0.00\nMAX host_to_device_memcpy_ce 26.00\n"
                     "AVG host_to_device_memcpy_ce 26.00\n"),
            std::string::npos)
      << got;
}

TEST(NvbandwidthTableTest, PlainRunIsTheToolsLayout) {
  const auto t = topo::load_topology("rtx2080ti-2x");
  NvbandwidthPrintOptions o;
  const std::string got = format_nvbandwidth(t, {0, 4}, o);  // host_to_device_memcpy_ce, a D2D

  // The one figure, from tests/coll/nvbandwidth_test.cpp: 536870912 x 16 x 1e6 / 654749 B/s.
  const double h2d_GBps = 536870912ull * 16 * 1000000 / 654749 * 1e-9;
  coll::NvbMatrix m{"host_to_device_memcpy_ce", "", 1, 2, {h2d_GBps, h2d_GBps}};
  std::ostringstream w;
  w << "nvbandwidth Version: "
    << "v0.8" << std::endl;
  w << "Built from Git version: "
    << "unknown" << std::endl
    << std::endl;
  w << "CUDA Runtime Version: " << 0 << std::endl;
  w << "CUDA Driver Version: " << 0 << std::endl;
  w << "Driver Version: "
    << "simulated" << std::endl
    << std::endl;
  w << "rtx2080ti-2x" << std::endl;
  for (int iDev = 0; iDev < 2; iDev++) {
    w << "Device " << iDev << ": "
      << "RTX-2080-Ti"
      << " (" << std::hex << std::setw(8) << std::setfill('0') << 0 << ":" << std::hex
      << std::setw(2) << std::setfill('0') << iDev << ":" << std::hex << std::setw(2)
      << std::setfill('0') << 0 << ")" << std::dec << std::setfill(' ') << std::setw(0)
      << std::endl;
  }
  w << std::endl;
  w << "Running"
    << " "
    << "host_to_device_memcpy_ce"
    << ".\n";
  w << "memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)" << std::endl;
  w << tool_matrix(m) << std::endl;
  // No peer access between the two GPUs: filter() fails, addTestcase(key, NVB_WAIVED).
  w << "Waived"
    << ": "
    << "" << std::endl;
  w << "NOTE: The reported results may not reflect the full capabilities of the platform."
    << std::endl
    << "Performance can vary with software drivers, hardware clocks, and system topology."
    << std::endl
    << std::endl;
  EXPECT_EQ(got, w.str());
  EXPECT_NE(got.find(" 0     13.12     13.12\n\nSUM host_to_device_memcpy_ce 26.24\n"),
            std::string::npos);
}

TEST(NvbandwidthTableTest, SmallBufferWarningComesBeforeTheCudaLines) {
  const auto t = topo::load_topology("rtx2080ti-2x");
  NvbandwidthPrintOptions o;
  o.run.buffer_bytes = 64u << 20;
  const std::string got = format_nvbandwidth(t, {0}, o);
  EXPECT_EQ(got.substr(0, got.find("CUDA Runtime")),
            "nvbandwidth Version: v0.8\nBuilt from Git version: unknown\n\nNOTE: You have chosen "
            "a buffer size that is smaller than the default buffer size. It is suggested to use "
            "the default buffer size (64MB) to achieve maximal peak bandwidth.\n");
}

TEST(NvbandwidthTableTest, VerboseSamples) {
  const auto t = topo::load_topology("rtx2080ti-2x");
  NvbandwidthPrintOptions o;
  o.verbose = true;
  o.run.samples = 2;
  const std::string got = format_nvbandwidth(t, {0}, o);
  // memcpy.cpp: "\tSample n: <src> -> <dst>: %.2f GB/s" for each sample of each GPU's copy,
  // between the Running line and the matrix.
  EXPECT_NE(got.find("Running host_to_device_memcpy_ce.\n\tSample 0: Host -> Device 0: 13.12 "
                     "GB/s\n\tSample 1: Host -> Device 0: 13.12 GB/s\n\tSample 0: Host -> "
                     "Device 1: 13.12 GB/s\n\tSample 1: Host -> Device 1: 13.12 GB/s\nmemcpy CE"),
            std::string::npos)
      << got;
}

TEST(NvbandwidthTableTest, ListIsTheToolsListing) {
  const std::string got = format_nvbandwidth_list(false);
  std::ostringstream w;
  w << "nvbandwidth Version: v0.8\nBuilt from Git version: unknown\n\n";
  w << "Index, Name:\n\tDescription\n";
  w << "=======================\n";
  const auto all = coll::nvbandwidth_testcases();
  for (unsigned int i = 0; i < all.size(); i++)
    w << i << ", " << all[i].key << ":\n" << all[i].description << "\n\n";
  EXPECT_EQ(got, w.str());
  EXPECT_NE(got.find("\n0, host_to_device_memcpy_ce:\n\tHost to device CE memcpy using "
                     "cuMemcpyAsync\n\n1, device_to_host_memcpy_ce:\n"),
            std::string::npos);
  // Output::listTestcases() writes through OUTPUT, which -j silences.
  EXPECT_EQ(format_nvbandwidth_list(true), "");
}

TEST(NvbandwidthTableTest, JsoncppStyledLayout) {
  nlohmann::json v;
  v["b"] = nlohmann::json::array({"x", "y"});
  v["a"]["n"] = 3;
  v["a"]["r"] = 2.0;
  v["c"] = nlohmann::json::array();
  v["d"] = std::numeric_limits<double>::quiet_NaN();
  v["e"] = "tab\there \"q\" \xc3\xa9";
  EXPECT_EQ(jsoncpp_styled(v),
            "{\n"
            "\t\"a\" : \n"
            "\t{\n"
            "\t\t\"n\" : 3,\n"
            "\t\t\"r\" : 2.0\n"
            "\t},\n"
            "\t\"b\" : \n"
            "\t[\n"
            "\t\t\"x\",\n"
            "\t\t\"y\"\n"
            "\t],\n"
            "\t\"c\" : [],\n"
            "\t\"d\" : null,\n"
            "\t\"e\" : \"tab\\there \\\"q\\\" \\u00e9\"\n"
            "}\n\n");
}

TEST(NvbandwidthTableTest, JsonRunIsTheToolsShape) {
  const auto t = topo::load_topology("rtx2080ti-2x");
  NvbandwidthPrintOptions o;
  o.json = true;
  const std::string got = format_nvbandwidth(t, {0, 4}, o);
  const double h2d_GBps = 536870912ull * 16 * 1000000 / 654749 * 1e-9;
  std::ostringstream cell;  // JsonOutput: a default stringstream << value
  cell << h2d_GBps;
  char sum[40];
  std::snprintf(sum, sizeof sum, "%.17g", h2d_GBps + h2d_GBps);
  const std::string want = std::string("{\n\t\"nvbandwidth\" : \n\t{\n") +
                           "\t\t\"CUDA Runtime Version\" : 0,\n"
                           "\t\t\"Driver Version\" : \"simulated\",\n"
                           "\t\t\"GPU Device list\" : \n\t\t[\n"
                           "\t\t\t\"0: RTX-2080-Ti (00000000:00:00): (rtx2080ti-2x)\",\n"
                           "\t\t\t\"1: RTX-2080-Ti (00000000:01:00): (rtx2080ti-2x)\"\n\t\t],\n"
                           "\t\t\"git_version\" : \"unknown\",\n"
                           "\t\t\"testcases\" : \n\t\t[\n\t\t\t{\n"
                           "\t\t\t\t\"bandwidth_description\" : \"memcpy CE CPU(row) -> "
                           "GPU(column) bandwidth (GB/s)\",\n"
                           "\t\t\t\t\"bandwidth_matrix\" : \n\t\t\t\t[\n\t\t\t\t\t[\n"
                           "\t\t\t\t\t\t\"" +
                           cell.str() + "\",\n\t\t\t\t\t\t\"" + cell.str() +
                           "\"\n\t\t\t\t\t]\n\t\t\t\t],\n"
                           "\t\t\t\t\"name\" : \"host_to_device_memcpy_ce\",\n"
                           "\t\t\t\t\"status\" : \"Passed\",\n"
                           "\t\t\t\t\"sum\" : " +
                           sum +
                           "\n\t\t\t},\n\t\t\t{\n"
                           "\t\t\t\t\"name\" : \"device_to_device_memcpy_read_ce\",\n"
                           "\t\t\t\t\"status\" : \"Waived\"\n\t\t\t}\n\t\t],\n"
                           "\t\t\"version\" : \"v0.8\"\n\t}\n}\n\n";
  EXPECT_EQ(got, want);
  EXPECT_EQ(cell.str(), "13.1194");
}

}  // namespace
}  // namespace linksim::report
