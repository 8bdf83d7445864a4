#include "sim/core/error.hpp"

namespace linksim {
namespace {
std::string compose(const std::string& file, const std::string& location,
                    const std::string& message) {
  // No file: a command-line value, whose location is the flag or argument ("nccl-tests -t:
  // ...", as CLI11 words its own "--jobs: ..."), or a problem of the command as a whole.
  if (file.empty()) return location.empty() ? message : location + ": " + message;
  std::string out = file;
  if (!location.empty()) out += ": at " + location;
  out += ": " + message;
  return out;
}
}  // namespace

InputError::InputError(std::string file, std::string location, std::string message)
    : std::runtime_error(compose(file, location, message)),
      file_(std::move(file)),
      location_(std::move(location)),
      message_(std::move(message)) {}

}  // namespace linksim
