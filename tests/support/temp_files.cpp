#include "tests/support/temp_files.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "sim/core/data_dir.hpp"

namespace linksim::testing {
namespace fs = std::filesystem;

TempDir::TempDir() {
  static std::atomic<int> counter{0};
  const fs::path p = fs::temp_directory_path() / ("linksim-test-" + std::to_string(::getpid()) +
                                                  "-" + std::to_string(counter++));
  fs::remove_all(p);
  fs::create_directories(p);
  path_ = p.string();
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

std::string TempDir::write(const std::string& name, const std::string& contents) const {
  const std::string full = path_ + "/" + name;
  std::ofstream out(full, std::ios::binary);
  out << contents;
  if (!out) throw std::runtime_error("cannot write " + full);
  return full;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string source_dir() {
  return data_dir();
}

std::string shell_quote(const std::string& text) {
  std::string out = "'";
  for (char c : text)
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

CommandResult run_linksim_with_stdout(const std::string& args, const std::string& stdout_path) {
  TempDir dir;
  const std::string err_path = dir.path() + "/stderr";
  const std::string command = std::string("'") + LINKSIM_CLI_PATH + "' " + args + " >" +
                              shell_quote(stdout_path) + " 2>'" + err_path + "'";
  const int status = std::system(command.c_str());
  CommandResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.err = read_file(err_path);
  return r;
}

CommandResult run_linksim(const std::string& args) {
  TempDir dir;
  const std::string out_path = dir.path() + "/stdout";
  const std::string err_path = dir.path() + "/stderr";
  const std::string command = std::string("'") + LINKSIM_CLI_PATH + "' " + args + " >'" + out_path +
                              "' 2>'" + err_path + "'";
  const int status = std::system(command.c_str());
  CommandResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_file(out_path);
  r.err = read_file(err_path);
  return r;
}

}  // namespace linksim::testing
