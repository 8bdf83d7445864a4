#include "sim/core/atomic_write.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>
#include <system_error>

#include "sim/core/error.hpp"

namespace linksim {
namespace {

namespace fs = std::filesystem;

std::string errno_text() {
  return std::strerror(errno);
}

fs::path parent_of(const std::string& path) {
  const fs::path p(path);
  return p.has_parent_path() ? p.parent_path() : fs::path(".");
}

// Writes all of `contents` to `fd`, naming `path` when a write fails or takes nothing
// (/dev/full).
void write_all(int fd, const std::string& contents, const std::string& path) {
  std::size_t done = 0;
  while (done < contents.size()) {
    const ssize_t n = ::write(fd, contents.data() + done, contents.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      throw InputError(path, "", "write failed: " + (n < 0 ? errno_text() : "nothing was written"));
    }
    done += static_cast<std::size_t>(n);
  }
}

// A temporary file in the target's folder that is renamed over the target by publish().
class TemporaryFile {
 public:
  explicit TemporaryFile(const std::string& target) : target_(target) {
    const std::string folder = parent_of(target).string();
    fd_ = ::open(folder.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
    if (fd_ >= 0) return;
    // No O_TMPFILE on this file system: a unique name, created exclusively (mkstemp opens with
    // O_CREAT | O_EXCL, so it never follows a link planted at that name).
    std::string pattern =
        (parent_of(target) / ("." + fs::path(target).filename().string() + ".linksim-XXXXXX"))
            .string();
    fd_ = ::mkstemp(pattern.data());
    if (fd_ < 0) throw InputError(target, "", "cannot create a temporary file: " + errno_text());
    named_ = pattern;
    const mode_t mask = ::umask(0);
    ::umask(mask);
    ::fchmod(fd_, 0666 & ~mask);
  }
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;
  ~TemporaryFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!named_.empty()) ::unlink(named_.c_str());
  }

  void write(const std::string& contents) { write_all(fd_, contents, target_); }

  // Gives the unnamed file a unique name in the folder (once all files are written), so that
  // the renames that follow are the only step left.
  void name() {
    if (!named_.empty()) return;
    const std::string proc = "/proc/self/fd/" + std::to_string(fd_);
    std::random_device seed;
    std::mt19937_64 random(seed());
    for (int attempt = 0; attempt < 100; ++attempt) {
      const std::string candidate =
          (parent_of(target_) / ("." + fs::path(target_).filename().string() + ".linksim-" +
                                 std::to_string(random() % 1000000000)))
              .string();
      if (::linkat(AT_FDCWD, proc.c_str(), AT_FDCWD, candidate.c_str(), AT_SYMLINK_FOLLOW) == 0) {
        named_ = candidate;
        return;
      }
      if (errno != EEXIST) break;
    }
    throw InputError(target_, "", "cannot name the temporary file: " + errno_text());
  }

  void publish() {
    if (::close(fd_) != 0) {
      fd_ = -1;
      throw InputError(target_, "", "write failed: " + errno_text());
    }
    fd_ = -1;
    if (::rename(named_.c_str(), target_.c_str()) != 0) {
      throw InputError(target_, "", "cannot move the temporary file into place: " + errno_text());
    }
    named_.clear();
  }

 private:
  std::string target_;
  std::string named_;  // empty while the file is unnamed (O_TMPFILE) or once published
  int fd_ = -1;
};

// A destination written in place, never replaced: an existing entry that is not a regular file
// once links are followed (a FIFO, a terminal, a device), or anything under /dev or /proc
// (/dev/stdout, /dev/null, /proc/self/fd/1), whatever it points to: replacing those would
// replace the system's own entries.
bool written_in_place(const std::string& path) {
  std::error_code ec;
  const fs::path absolute = fs::absolute(path, ec);
  const std::string a = absolute.lexically_normal().string();
  if (a.rfind("/dev/", 0) == 0 || a.rfind("/proc/", 0) == 0) return true;
  const fs::file_status followed = fs::status(path, ec);
  return fs::exists(followed) && !fs::is_regular_file(followed) && !fs::is_directory(followed);
}

// Writes `contents` into an existing stream or device as `>` would, failing on a short write
// (/dev/full) rather than replacing it.
void write_in_place(const std::string& path, const std::string& contents) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) throw InputError(path, "", "cannot open it for writing: " + errno_text());
  try {
    write_all(fd, contents, path);
  } catch (...) {
    ::close(fd);
    throw;
  }
  if (::close(fd) != 0) throw InputError(path, "", "write failed: " + errno_text());
}

}  // namespace

void check_output_destination(const std::string& path, bool force) {
  if (path.empty()) throw InputError("", "", "an output file name is empty");
  std::error_code ec;
  const fs::file_status target = fs::symlink_status(path, ec);
  if (fs::is_directory(fs::status(path, ec))) {
    throw InputError(path, "", "is a folder; name a file to write");
  }
  if (written_in_place(path)) {
    // Nothing is replaced, so no --force; it must exist and take writes.
    if (!fs::exists(fs::status(path, ec))) {
      throw InputError(path, "",
                       "does not exist; linksim creates files only outside /dev and /proc");
    }
    if (::access(path.c_str(), W_OK) != 0) {
      throw InputError(path, "", "is not writable: " + errno_text());
    }
    return;
  }
  if (fs::exists(target) && !force) {
    throw InputError(path, "", "file exists; pass --force to overwrite it");
  }
  const fs::path folder = parent_of(path);
  if (!fs::is_directory(folder, ec)) {
    throw InputError(path, "", "folder " + folder.string() + " does not exist");
  }
  if (::access(folder.c_str(), W_OK | X_OK) != 0) {
    throw InputError(path, "", "folder " + folder.string() + " is not writable");
  }
}

void write_file_atomically(const std::string& path, const std::string& contents, bool force) {
  write_files_atomically({{path, contents}}, force);
}

void write_files_atomically(const std::vector<std::pair<std::string, std::string>>& files,
                            bool force) {
  for (const auto& [path, contents] : files)
    check_output_destination(path, force);
  std::vector<std::unique_ptr<TemporaryFile>> temporaries;
  std::vector<const std::pair<std::string, std::string>*> streams;
  for (const auto& file : files) {
    if (written_in_place(file.first)) {
      streams.push_back(&file);
      continue;
    }
    temporaries.push_back(std::make_unique<TemporaryFile>(file.first));
    temporaries.back()->write(file.second);
  }
  for (auto& t : temporaries)
    t->name();
  // Streams cannot be taken back: they go last before the renames, so a failed one leaves no
  // file in place.
  for (const auto* s : streams)
    write_in_place(s->first, s->second);
  for (auto& t : temporaries)
    t->publish();
}

}  // namespace linksim
