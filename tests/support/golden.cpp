#include "tests/support/golden.hpp"

#include <gtest/gtest.h>

#include "tests/support/temp_files.hpp"

namespace linksim::testing {

void expect_golden(const std::string& args, const std::string& golden) {
  const auto r = run_linksim(args);
  ASSERT_EQ(r.exit_code, 0) << args << "\n" << r.err;
  std::string out = r.out;
  const std::string src = source_dir();
  for (auto at = out.find(src); at != std::string::npos; at = out.find(src, at))
    out.replace(at, src.size(), "$SRC");
  EXPECT_EQ(out, read_file(source_dir() + "/tests/data/golden/" + golden)) << args;
}

}  // namespace linksim::testing
