#include "sim/core/atomic_write.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <set>
#include <system_error>

#include "sim/core/error.hpp"
#include "sim/core/stale_temporaries.hpp"

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

// Random letters and digits, for a temporary name.
std::string random_suffix() {
  static constexpr char kChars[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::random_device seed;
  std::mt19937_64 random(seed());
  std::string out;
  for (int i = 0; i < 12; ++i)
    out += kChars[random() % (sizeof kChars - 1)];
  return out;
}

// The refusal of an existing destination without --force, as the check and the writes say it.
InputError file_exists(const std::string& path) {
  return InputError(path, "", "file exists; pass --force to overwrite it");
}

bool same_file(const struct stat& a, const struct stat& b) {
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

// One output's file, written unnamed (O_TMPFILE) in the target's folder where the file system
// allows it, then either linked straight to the target's name (a new file) or given a hidden
// temporary name and renamed over the target (a replacement). The file is flock'ed from before
// it has any name until it is published or removed, which is how remove_stale_temporaries tells
// a live writer's temporary from a killed one's (stale_temporaries.hpp).
class TemporaryFile {
 public:
  explicit TemporaryFile(const std::string& target) : target_(target) {
    const std::string folder = parent_of(target).string();
    fd_ = ::open(folder.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
    if (fd_ >= 0) {
      ::flock(fd_, LOCK_EX | LOCK_NB);  // a fresh file: nobody else can hold it
      return;
    }
    // No O_TMPFILE on this file system: a unique hidden name, created exclusively (mkstemp opens
    // with O_CREAT | O_EXCL, so it never follows a link planted at that name), then locked.
    // Between the two a cleaner may take the file for a dead writer's; then the name is no longer
    // this file's, and another is made.
    const std::string base = fs::path(target).filename().string();
    for (int attempt = 0; attempt < 100; ++attempt) {
      std::string pattern = (parent_of(target) / temporary_name(base, "XXXXXX")).string();
      fd_ = ::mkstemp(pattern.data());
      if (fd_ < 0) throw InputError(target, "", "cannot create a temporary file: " + errno_text());
      ::fcntl(fd_, F_SETFD, FD_CLOEXEC);
      ::flock(fd_, LOCK_EX | LOCK_NB);
      struct stat opened {};
      struct stat named {};
      if (::fstat(fd_, &opened) == 0 && ::lstat(pattern.c_str(), &named) == 0 &&
          same_file(opened, named)) {
        named_ = pattern;
        const mode_t mask = ::umask(0);
        ::umask(mask);
        ::fchmod(fd_, 0666 & ~mask);
        return;
      }
      ::close(fd_);
      fd_ = -1;
    }
    throw InputError(target, "", "cannot create a temporary file: its names kept vanishing");
  }
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;
  ~TemporaryFile() {
    // The name goes before the lock, so a named temporary is never left unlocked by a live run.
    if (!named_.empty()) ::unlink(named_.c_str());
    if (fd_ >= 0) ::close(fd_);
  }

  const std::string& target() const { return target_; }
  bool replacing() const { return replacing_; }

  void write(const std::string& contents) { write_all(fd_, contents, target_); }

  // Closes the descriptor the text was written through, which reports a write that failed late
  // (NFS reports at close), and keeps a duplicate of it: the same open file, so the same lock.
  void finish() {
    const int kept = ::fcntl(fd_, F_DUPFD_CLOEXEC, 0);
    if (kept < 0) throw InputError(target_, "", "cannot keep the temporary file: " + errno_text());
    const int closed = ::close(fd_);
    fd_ = kept;
    if (closed != 0) throw InputError(target_, "", "write failed: " + errno_text());
  }

  // Whether the target has an entry now (a link counts as one: it is replaced, not followed).
  bool target_exists() const {
    struct stat st {};
    return ::lstat(target_.c_str(), &st) == 0;
  }

  // Prepares to replace the target: gives the file a unique hidden name in the folder (the
  // mkstemp file has one already), so that a rename is the only step left.
  void name_to_replace() {
    replacing_ = true;
    if (!named_.empty()) return;
    const std::string base = fs::path(target_).filename().string();
    for (int attempt = 0; attempt < 100; ++attempt) {
      const std::string candidate =
          (parent_of(target_) / temporary_name(base, random_suffix())).string();
      if (link_to(candidate) == 0) {
        named_ = candidate;
        return;
      }
      if (errno != EEXIST) break;
    }
    throw InputError(target_, "", "cannot name the temporary file: " + errno_text());
  }

  // Gives the new file the target's name, failing with EEXIST (nothing changed) when an entry
  // of that name exists, whatever it is: the check and the creation are one step, so nothing is
  // overwritten without --force even when the entry appears after check_output_destination.
  // Returns 0 or an errno value.
  int link_new() {
    int failed = 0;
    if (named_.empty()) {
      failed = link_to(target_) == 0 ? 0 : errno;
    } else if (::renameat2(AT_FDCWD, named_.c_str(), AT_FDCWD, target_.c_str(), RENAME_NOREPLACE) ==
               0) {
      named_.clear();
    } else if (errno != EINVAL) {
      failed = errno;
    } else if (::link(named_.c_str(), target_.c_str()) == 0) {  // no RENAME_NOREPLACE here
      ::unlink(named_.c_str());
      named_.clear();
    } else {
      failed = errno;
    }
    published_ = failed == 0;
    return failed;
  }

  // Takes back a link_new: removes the target's name if it is still this file.
  void unlink_published() {
    if (!published_) return;
    struct stat mine {};
    struct stat named {};
    if (::fstat(fd_, &mine) == 0 && ::lstat(target_.c_str(), &named) == 0 &&
        same_file(mine, named)) {
      ::unlink(target_.c_str());
    }
    published_ = false;
  }

  // Renames the hidden name over the target (name_to_replace first).
  void replace() {
    if (::rename(named_.c_str(), target_.c_str()) != 0) {
      throw InputError(target_, "", "cannot move the temporary file into place: " + errno_text());
    }
    named_.clear();
  }

 private:
  // Links the unnamed file to `path`, never replacing an entry there. linkat through
  // /proc/self/fd needs no privilege; AT_EMPTY_PATH is the way without /proc.
  int link_to(const std::string& path) {
    const std::string proc = "/proc/self/fd/" + std::to_string(fd_);
    if (::linkat(AT_FDCWD, proc.c_str(), AT_FDCWD, path.c_str(), AT_SYMLINK_FOLLOW) == 0) return 0;
    if (errno != ENOENT || ::access("/proc/self/fd", F_OK) == 0) return -1;
    return ::linkat(fd_, "", AT_FDCWD, path.c_str(), AT_EMPTY_PATH);
  }

  std::string target_;
  std::string named_;  // the hidden name while there is one
  int fd_ = -1;
  bool replacing_ = false;
  bool published_ = false;  // linked to the target by link_new
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
  if (fs::exists(target) && !force) throw file_exists(path);
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
  std::set<std::string> folders;
  for (const auto& file : files) {
    if (written_in_place(file.first)) {
      streams.push_back(&file);
    } else {
      folders.insert(parent_of(file.first).string());
    }
  }
  // What killed runs left in these folders (stale_temporaries.hpp).
  for (const auto& folder : folders)
    remove_stale_temporaries(folder);
  for (const auto& file : files) {
    if (written_in_place(file.first)) continue;
    temporaries.push_back(std::make_unique<TemporaryFile>(file.first));
    temporaries.back()->write(file.second);
    temporaries.back()->finish();
  }
  // Replacements get their hidden names before anything is published.
  for (auto& t : temporaries) {
    if (!t->target_exists()) continue;
    if (!force) throw file_exists(t->target());
    t->name_to_replace();
  }
  // New files are linked straight to their names, and streams written; a failure takes those
  // links back, so nothing has changed but the streams written before it (which go last of the
  // two for that reason).
  try {
    for (auto& t : temporaries) {
      if (t->replacing()) continue;
      const int failed = t->link_new();
      if (failed == 0) continue;
      if (failed != EEXIST) {
        throw InputError(t->target(), "",
                         std::string("cannot create it: ") + std::strerror(failed));
      }
      if (!force) throw file_exists(t->target());  // it appeared since the check
      t->name_to_replace();
    }
    for (const auto* s : streams)
      write_in_place(s->first, s->second);
  } catch (...) {
    for (auto& t : temporaries)
      t->unlink_published();
    throw;
  }
  for (auto& t : temporaries) {
    if (t->replacing()) t->replace();
  }
}

}  // namespace linksim
