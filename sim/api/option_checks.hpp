#pragma once
// The checks a library call makes of its options, which the CLI leaves to its flag parser: the
// error names the option ("NcclTestsOptions::nodes") where the CLI's names the flag.

#include <string>

namespace linksim::api {

// Throws InputError at `option` unless `value` is `unset` (the option's "not given" value) or
// lies in [low, high]; `unset_means` says in words what `unset` does.
void check_count(const std::string& option, int value, int unset, const std::string& unset_means,
                 int low, int high);

// Throws InputError at `option` when `value` is empty (a required option).
void check_given(const std::string& option, const std::string& value, const std::string& example);

}  // namespace linksim::api
