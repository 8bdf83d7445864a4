#include "sim/cli/gnuplot.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/core/error.hpp"
#include "sim/report/plot.hpp"

extern char** environ;

namespace linksim::cli {
namespace {

namespace fs = std::filesystem;

bool has_control_character(const std::string& text) {
  return std::any_of(text.begin(), text.end(),
                     [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
}

// `text` with its control characters written as C escapes (\n, \x1b), for a message.
std::string escaped(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
    } else {
      out += c;
    }
  }
  return out;
}

// A folder of our own under $TMPDIR (or /tmp), removed with everything in it. Its path reaches
// gnuplot's script (set output), so a TMPDIR that no gnuplot string can hold is refused before
// anything is created.
class PrivateFolder {
 public:
  PrivateFolder() {
    const char* env = std::getenv("TMPDIR");
    const std::string base = env && *env ? env : "/tmp";
    if (has_control_character(base)) {
      throw InputError("", "TMPDIR",
                       fmt::format("\"{}\" holds a control character, which gnuplot cannot be "
                                   "given in a file name; set TMPDIR to a folder without one",
                                   escaped(base)));
    }
    std::string pattern = base + "/linksim-plot-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) {
      throw InputError("", "",
                       std::string("cannot create a temporary folder: ") + std::strerror(errno));
    }
    path_ = pattern;
  }
  PrivateFolder(const PrivateFolder&) = delete;
  PrivateFolder& operator=(const PrivateFolder&) = delete;
  ~PrivateFolder() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string first_line(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") != std::string::npos) return line;
  }
  return "";
}

// Writes all of `text` to `fd`; false when the reader went away.
bool write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

// Runs `gnuplot` with `script` on its standard input and its output in `log_path`. Returns the
// wait status, or -1 with errno set when gnuplot could not be started.
int run_gnuplot_process(const std::string& script, const std::string& log_path) {
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) return -1;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[0], STDIN_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  char program[] = "gnuplot";
  char* argv[] = {program, nullptr};
  pid_t pid = 0;
  const int spawned = ::posix_spawnp(&pid, program, &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_fds[0]);
  if (spawned != 0) {
    ::close(pipe_fds[1]);
    errno = spawned;
    return -1;
  }
  // A gnuplot that exits early closes the pipe; that must be an error here, not a SIGPIPE.
  struct sigaction ignore {};
  struct sigaction previous {};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGPIPE, &ignore, &previous);
  write_all(pipe_fds[1], script);
  ::close(pipe_fds[1]);
  ::sigaction(SIGPIPE, &previous, nullptr);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

// `path` as a gnuplot single-quoted string, the one form in which gnuplot expands nothing: a
// quote inside is written twice (''), and a backslash stands for itself. A path holding a line
// break or another control character cannot be written so (a line break ends gnuplot's
// command), nor read back by a person: InputError naming `origin`, where the path came from.
std::string gnuplot_path(const std::string& path, const std::string& origin) {
  if (has_control_character(path)) {
    throw InputError("", origin,
                     fmt::format("\"{}\" holds a control character, which gnuplot cannot be given "
                                 "in a file name",
                                 escaped(path)));
  }
  std::string out = "'";
  for (const char c : path) {
    if (c == '\'') out += '\'';
    out += c;
  }
  return out + "'";
}

}  // namespace

void check_picture_type(const std::string& picture_path) {
  if (!report::gnuplot_terminal_for(picture_path)) {
    throw InputError(picture_path, "",
                     "cannot tell what picture to draw from the extension; name a .png, .svg or "
                     ".pdf file");
  }
}

std::string render_plot(const std::string& script, const std::string& picture_path) {
  check_picture_type(picture_path);
  const PrivateFolder folder;
  const std::string ext = fs::path(picture_path).extension().string();
  const std::string picture = folder.path() + "/plot" + ext;
  const std::string log = folder.path() + "/gnuplot.log";
  // The folder lies under $TMPDIR, which may hold any character: quoted like every path.
  const std::string full = "set terminal " + *report::gnuplot_terminal_for(picture_path) +
                           "\nset output " + gnuplot_path(picture, "TMPDIR") + "\n" + script +
                           "unset output\n";
  const int status = run_gnuplot_process(full, log);
  if (status == -1) {
    throw InputError(picture_path, "",
                     std::string("cannot start gnuplot (") + std::strerror(errno) +
                         "); scripts/install-deps.sh installs gnuplot-nox");
  }
  std::error_code ec;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || fs::file_size(picture, ec) == 0 || ec) {
    const std::string why = first_line(read_all(log));
    throw InputError(picture_path, "",
                     "gnuplot failed" + (why.empty() ? std::string() : ": " + why));
  }
  return read_all(picture);
}

}  // namespace linksim::cli
