#include "sim/core/error.hpp"

namespace linksim {
namespace {
std::string compose(const std::string& file, const std::string& location,
                    const std::string& message) {
  std::string out = file.empty() ? std::string("<input>") : file;
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
