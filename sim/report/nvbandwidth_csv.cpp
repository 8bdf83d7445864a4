#include "sim/report/nvbandwidth_csv.hpp"

#include <fmt/format.h>

#include "sim/core/units.hpp"

namespace linksim::report {

std::string nvbandwidth_csv(const topo::Topology& topo, const std::vector<std::size_t>& testcases,
                            const coll::NvbOptions& options) {
  std::string out = "testcase,status,matrix,row,column,bandwidth_GBps\n";
  const auto all = coll::nvbandwidth_testcases();
  for (std::size_t i : testcases) {
    const auto r = coll::run_nvbandwidth(topo, all[i], options);
    if (r.waived) {
      out += fmt::format("{},waived,,,,\n", all[i].key);
      continue;
    }
    for (const auto& m : r.matrices) {
      for (int row = 0; row < m.rows; ++row) {
        for (int column = 0; column < m.columns; ++column) {
          const auto& cell = m.at(row, column);
          out += fmt::format("{},ok,{},{},{},{}\n", all[i].key, m.key, row, column,
                             cell ? units::exact(*cell) : std::string());
        }
      }
    }
  }
  return out;
}

}  // namespace linksim::report
