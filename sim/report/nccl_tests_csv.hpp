#pragma once
// An nccl-tests run's figures for programs, a layout of linksim's own (nccl-tests prints a table
// and, with -J, JSON): one row per size and placement, in the order the table prints them,
//   size_bytes,count,type,redop,root,placement,time_us,algbw_GBps,busbw_GBps
// placement is "out-of-place" or "in-place"; redop is "none" and root -1 for operations without
// one; times in microseconds and bandwidths in GB/s (10^9 bytes/s) as nccl-tests reports them,
// exact (units::exact) rather than rounded to the table's digits.

#include <string>
#include <vector>

#include "sim/coll/sweep.hpp"

namespace linksim::report {

std::string nccl_tests_csv(const std::vector<coll::SweepRow>& rows);

}  // namespace linksim::report
