#pragma once
// The one error type for bad input, thrown by every linksim call. It names the file, where in it
// (a JSON pointer such as "/links/3/bandwidth", or "line 4, column 7"), and what was expected.
// The CLI prints what() and exits with code 2; library code never prints. A value that comes
// from no file (a command-line flag, an option of a library call) has no file: its location is
// the flag or the option, and what() is "nccl-tests -t: expected ...".
//
// Part of the installed C++ package (docs/cpp-api.md): standard headers only.

#include <stdexcept>
#include <string>

namespace linksim {

class InputError : public std::runtime_error {
 public:
  InputError(std::string file, std::string location, std::string message);

  const std::string& file() const { return file_; }          // "" for a value from no file
  const std::string& location() const { return location_; }  // JSON pointer, line, or flag
  const std::string& message() const { return message_; }    // what was expected

 private:
  std::string file_;
  std::string location_;
  std::string message_;
};

}  // namespace linksim
