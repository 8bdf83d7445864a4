#pragma once
// The error type for bad input, linksim::InputError, is part of the installed C++ package
// (include/linksim/error.hpp); this header adds what only the command line needs.

#include <linksim/error.hpp>

namespace linksim {

// Exit code the CLI uses for every InputError.
inline constexpr int kInputErrorExitCode = 2;

}  // namespace linksim
