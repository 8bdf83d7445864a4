// CPU lists as Linux and nvidia-smi print them (sim/topo/cpu_list.hpp).
#include "sim/topo/cpu_list.hpp"

#include <gtest/gtest.h>

namespace linksim::topo {
namespace {

TEST(CpuList, ListsOfForwardRangesBelowLinuxsCpusAreFine) {
  for (const char* ok : {"0", "0-31", "0-31,64-95", "48-63,176-191", "8191", "0-3,", "5-5"})
    EXPECT_EQ(cpu_list_problem(ok), std::nullopt) << ok;
}

TEST(CpuList, SaysWhatIsWrong) {
  EXPECT_EQ(cpu_list_problem("99999-1"),
            "the range 99999-1 runs backwards; expected low-high such as 0-31");
  EXPECT_EQ(cpu_list_problem("0-8192"),
            "CPU 8192 is beyond the 8192 CPUs Linux numbers; expected CPU numbers such as "
            "0-31,64-95");
  // Twenty digits count as past the limit rather than overflowing a long.
  EXPECT_EQ(cpu_list_problem("99999999999999999999"),
            "CPU 99999999999999999999 is beyond the 8192 CPUs Linux numbers; expected CPU "
            "numbers such as 0-31,64-95");
  for (const char* bad : {"", "a", "0-", "-3", "0--3", "0-3-5", "0;1", "0,,1", " 0"}) {
    EXPECT_EQ(
        cpu_list_problem(bad),
        std::string("expected CPU numbers and ranges such as 0-31,64-95, got \"") + bad + "\"")
        << bad;
  }
}

}  // namespace
}  // namespace linksim::topo
