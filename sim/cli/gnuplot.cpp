#include "sim/cli/gnuplot.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "sim/core/atomic_write.hpp"
#include "sim/core/error.hpp"

namespace linksim::cli {

void run_gnuplot(const std::string& script, const std::string& png_path, bool force) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!force && fs::exists(png_path, ec)) {
    throw InputError(png_path, "", "file exists; pass --force to overwrite it");
  }
  const std::string script_path = png_path + ".gp";
  write_file_atomically(script_path, script, true);
  const std::string cmd = "gnuplot '" + script_path + "' 2>&1";
  const int status = std::system(cmd.c_str());
  fs::remove(script_path, ec);
  const std::string tmp = png_path + ".tmp";
  if (status != 0 || !fs::exists(tmp, ec)) {
    fs::remove(tmp, ec);
    throw InputError(png_path, "",
                     "gnuplot failed (is it installed? scripts/install-deps.sh "
                     "installs gnuplot-nox)");
  }
  fs::rename(tmp, png_path, ec);
  if (ec) throw InputError(png_path, "", "cannot move the plot into place: " + ec.message());
}

}  // namespace linksim::cli
