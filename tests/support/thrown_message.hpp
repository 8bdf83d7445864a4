#pragma once
// The message of the `Error` a call throws, or "accepted" when it throws none: for tests that
// hold an error's text to what a user reads.

#include <string>
#include <utility>

namespace linksim::testing {

template <typename Error, typename Call>
std::string thrown_message(Call&& call) {
  try {
    std::forward<Call>(call)();
  } catch (const Error& e) {
    return e.what();
  }
  return "accepted";
}

}  // namespace linksim::testing
