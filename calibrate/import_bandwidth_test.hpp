#pragma once
// bandwidthTest (CUDA samples) output: "Host to Device / Device to Host / Device to Device
// Bandwidth, N Device(s)" sections, each with "PINNED|PAGEABLE Memory Transfers" and a
// "Transfer Size (Bytes)  Bandwidth(GB/s)" table (one row in quick mode, many in range/shmoo
// mode). Older samples print "Bandwidth(MB/s)", which they compute with MB = 2^20 bytes
// (bandwidthTest.cu: 1e3 * bytes / (ms * (1 << 20))); newer ones print GB/s = 1e9 B/s. One
// file must use one unit. Device to Device counts each byte twice (read and write), as the
// sample does; records keep that bandwidth and carry time = 2 * size / bandwidth.

#include <string>
#include <vector>

#include "calibrate/import_options.hpp"
#include "calibrate/record.hpp"

namespace linksim::calibrate {

// kind::h2d (dst_gpu = device), kind::d2h (src_gpu = device), kind::d2d (both = device);
// variant "pinned" or "pageable". The device is the last "Device N:" line before the section
// (0 when none). Throws InputError naming file and line for mixed units, a table without rows
// (truncated), non-numeric cells, rows outside a section, or a device (a "Device N:" line or
// a section's "N Device(s)") beyond options.expected_gpu_count.
std::vector<Record> import_bandwidth_test(const std::string& text, const std::string& file,
                                          const ImportOptions& options = {});
std::vector<Record> import_bandwidth_test_file(const std::string& path,
                                               const ImportOptions& options = {});

}  // namespace linksim::calibrate
