#include "sim/core/stale_temporaries.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>

namespace linksim {
namespace {

constexpr std::string_view kMarker = ".linksim-locked-";
constexpr std::size_t kMinUnique = 6;  // mkstemp's XXXXXX

// Closes a descriptor when it goes out of scope.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::string temporary_name(std::string_view target_file_name, std::string_view unique) {
  std::string out = ".";
  out += target_file_name;
  out += kMarker;
  out += unique;
  return out;
}

bool is_temporary_name(std::string_view entry) {
  // "." + at least one character of NAME + marker + unique
  if (entry.size() < 2 + kMarker.size() + kMinUnique || entry.front() != '.') return false;
  const std::size_t at = entry.rfind(kMarker);
  if (at == std::string_view::npos || at < 2) return false;
  const std::string_view unique = entry.substr(at + kMarker.size());
  if (unique.size() < kMinUnique) return false;
  for (char c : unique) {
    if (std::isalnum(static_cast<unsigned char>(c)) == 0) return false;
  }
  return true;
}

std::size_t remove_stale_temporaries(const std::string& folder) {
  DIR* dir = ::opendir(folder.c_str());
  if (dir == nullptr) return 0;
  const int dir_fd = ::dirfd(dir);
  const uid_t me = ::geteuid();
  std::size_t removed = 0;
  while (const dirent* e = ::readdir(dir)) {
    if (!is_temporary_name(e->d_name)) continue;
    // O_NOFOLLOW: a symbolic link of this name fails to open and is left alone; O_NONBLOCK: a
    // FIFO of this name does not block the open (it is then refused as not a regular file).
    Fd file{::openat(dir_fd, e->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)};
    if (file.fd < 0) continue;
    struct stat held {};
    if (::fstat(file.fd, &held) != 0 || !S_ISREG(held.st_mode) || held.st_uid != me) continue;
    // A live writer holds the lock; taking it means the writer is gone.
    if (::flock(file.fd, LOCK_EX | LOCK_NB) != 0) continue;
    // Still the same file under that name (not replaced since it was opened)?
    struct stat named {};
    if (::fstatat(dir_fd, e->d_name, &named, AT_SYMLINK_NOFOLLOW) != 0 ||
        named.st_dev != held.st_dev || named.st_ino != held.st_ino) {
      continue;
    }
    if (::unlinkat(dir_fd, e->d_name, 0) == 0) ++removed;
  }
  ::closedir(dir);
  return removed;
}

}  // namespace linksim
