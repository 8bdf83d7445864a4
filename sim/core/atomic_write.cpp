#include "sim/core/atomic_write.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "sim/core/error.hpp"

namespace linksim {

void write_file_atomically(const std::string& path, const std::string& contents, bool force) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!force && fs::exists(path, ec)) {
    throw InputError(path, "", "file exists; pass --force to overwrite it");
  }
  const std::string temp = path + ".tmp-linksim";
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError(path, "", "cannot open for writing (temporary file " + temp + ")");
    out << contents;
    out.flush();
    if (!out) {
      fs::remove(temp, ec);
      throw InputError(path, "", "write failed");
    }
  }
  fs::rename(temp, path, ec);
  if (ec) {
    fs::remove(temp, ec);
    throw InputError(path, "", "cannot rename temporary file into place: " + ec.message());
  }
}

}  // namespace linksim
