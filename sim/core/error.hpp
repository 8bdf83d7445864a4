#pragma once
// The one error type for bad input. It names the file, where in it (a JSON pointer such as
// "/links/3/bandwidth", or "line 4, column 7"), and what was expected. The CLI prints what()
// and exits with code 2; library code never prints. A command-line value has no file: its
// location is the flag or argument, and what() is "nccl-tests -t: expected ...".

#include <stdexcept>
#include <string>

namespace linksim {

class InputError : public std::runtime_error {
 public:
  InputError(std::string file, std::string location, std::string message);

  const std::string& file() const { return file_; }
  const std::string& location() const { return location_; }
  const std::string& message() const { return message_; }

 private:
  std::string file_;
  std::string location_;
  std::string message_;
};

// Exit code the CLI uses for every InputError.
inline constexpr int kInputErrorExitCode = 2;

}  // namespace linksim
