#pragma once
// Golden CLI tests: a command's stdout against tests/data/golden/<golden>, with the checkout's
// folder written as $SRC so that goldens hold wherever the tree is (scripts/update-golden.sh
// writes them the same way).

#include <string>

namespace linksim::testing {

// Runs `linksim <args>`; fails the test unless it exits 0 and prints the golden byte for byte.
void expect_golden(const std::string& args, const std::string& golden);

}  // namespace linksim::testing
