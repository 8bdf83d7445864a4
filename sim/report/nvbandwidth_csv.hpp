#pragma once
// nvbandwidth's figures for programs, a layout of linksim's own (the tool prints none): one row
// per matrix cell, in the order the tool prints them,
//   testcase,status,matrix,row,column,bandwidth_GBps
// `matrix` is the SUM line's name (the testcase, or "<testcase>_read1" ...), rows and columns
// are the matrix's indices (GPU ordinals, or the CPU as row 0 of a host matrix), and the
// bandwidth is GB/s (10^9 bytes/s) as the tool reports it, exact (units::exact), empty where
// the tool prints N/A. A testcase the machine cannot run is one row with status "waived" and
// the other fields empty.

#include <string>
#include <vector>

#include "sim/coll/nvbandwidth.hpp"

namespace linksim::report {

std::string nvbandwidth_csv(const topo::Topology& topo, const std::vector<std::size_t>& testcases,
                            const coll::NvbOptions& options);

}  // namespace linksim::report
