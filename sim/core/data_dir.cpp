#include "sim/core/data_dir.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "sim/core/error.hpp"

namespace linksim {
namespace {

// The installed layout: <prefix>/bin/linksim and <prefix>/share/linksim/topologies.
std::string installed_data_dir() {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return "";
  const fs::path share = exe.parent_path().parent_path() / "share" / "linksim";
  if (fs::is_directory(share / "topologies", ec)) return share.string();
  return "";
}

}  // namespace

std::string data_dir() {
  if (const char* env = std::getenv("LINKSIM_DATA"); env != nullptr && *env != '\0') {
    // Said here, naming the variable: a missing folder otherwise surfaces as "default: cannot
    // open file", which names neither.
    std::error_code ec;
    if (!std::filesystem::is_directory(env, ec)) {
      throw InputError("LINKSIM_DATA", "",
                       fmt::format("\"{}\" is not a folder; expected the folder that holds "
                                   "topologies/, models/ and scenarios/ (or leave LINKSIM_DATA "
                                   "unset for the shipped ones)",
                                   env));
    }
    return env;
  }
  static const std::string installed = installed_data_dir();
  if (!installed.empty()) return installed;
  return LINKSIM_SOURCE_DATA_DIR;
}

}  // namespace linksim
