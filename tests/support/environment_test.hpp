#pragma once
// A test fixture that sets environment variables for the linksim processes its test starts
// (each test runs in a process of its own under ctest) and unsets them after.

#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

namespace linksim::testing {

class EnvironmentTest : public ::testing::Test {
 protected:
  void set(const char* name, const char* value) {
    ::setenv(name, value, 1);
    set_.push_back(name);
  }
  void TearDown() override {
    for (const char* name : set_)
      ::unsetenv(name);
  }

 private:
  std::vector<const char*> set_;
};

}  // namespace linksim::testing
