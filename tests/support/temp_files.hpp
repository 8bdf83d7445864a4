#pragma once
// Test helpers: a private temporary directory, writing fixture text into it, and running the
// linksim binary to capture its output and exit code.

#include <string>

namespace linksim::testing {

// A fresh directory under the system temp dir, removed on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  // Writes `contents` to <dir>/<name> and returns the full path.
  std::string write(const std::string& name, const std::string& contents) const;

 private:
  std::string path_;
};

struct CommandResult {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

// One argument quoted for the shell that run_linksim uses: 'text', with ' written as '\''.
std::string shell_quote(const std::string& text);

// Runs the linksim CLI built beside the tests with `args` (already shell-quoted).
CommandResult run_linksim(const std::string& args);
// The same with standard output sent to `stdout_path` (a device such as /dev/full); `out` is
// then empty.
CommandResult run_linksim_with_stdout(const std::string& args, const std::string& stdout_path);

// Reads a whole file; fails the test (throws) if it cannot.
std::string read_file(const std::string& path);

// Root of the source tree (for shipped data and tests/data).
std::string source_dir();

}  // namespace linksim::testing
