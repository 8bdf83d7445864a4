#pragma once
// What every fuzz target holds: a loader or importer either returns or throws InputError. Any
// other exception escapes the target (libFuzzer reports it as a crash), as do the sanitizers'
// findings.

#include <cstddef>
#include <cstdint>
#include <string>

#include "sim/core/error.hpp"

namespace linksim::fuzz {

inline std::string as_text(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

template <class F>
void expect_clean(F&& f) {
  try {
    f();
  } catch (const InputError&) {
    // A clean refusal.
  }
}

}  // namespace linksim::fuzz
