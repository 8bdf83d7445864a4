#include "sim/core/text_file.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include <fstream>
#include <vector>

#include "sim/core/error.hpp"

namespace linksim {
namespace detail {
namespace {

[[noreturn]] void fail_too_large(const std::string& name, std::uint64_t max_bytes) {
  const std::string limit = describe_byte_limit(max_bytes);
  throw InputError(name, "",
                   fmt::format("larger than {}; expected a text file of at most {}", limit, limit));
}

// Appends the rest of `in` to `out` in chunks, failing once it holds more than `max_bytes`: a
// stream's size is unknown until its end, and /dev/zero has none.
void append_bounded(std::istream& in, const std::string& name, std::uint64_t max_bytes,
                    std::string& out) {
  constexpr std::size_t kChunkBytes = std::size_t{1} << 20;
  std::vector<char> chunk(kChunkBytes);
  while (in) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    const auto got = static_cast<std::size_t>(in.gcount());
    // Checked before appending, so the text never grows past the limit to find out.
    if (out.size() + got > max_bytes) fail_too_large(name, max_bytes);
    out.append(chunk.data(), got);
  }
}

// What a file that is neither a folder nor a regular file is, as `ls -l` would say.
const char* special_file_kind(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "a special file";
}

}  // namespace

std::string describe_byte_limit(std::uint64_t bytes) {
  static constexpr const char* kUnits[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  std::size_t unit = 0;
  while (unit + 1 < std::size(kUnits) && bytes >= 1024 && bytes % 1024 == 0) {
    bytes /= 1024;
    ++unit;
  }
  return fmt::format("{} {}", bytes, kUnits[unit]);
}

std::string read_text_file(const std::string& path, std::size_t spare_capacity_bytes,
                           std::uint64_t max_bytes) {
  struct stat info {};
  const bool known = ::stat(path.c_str(), &info) == 0;
  // An ifstream opens a folder and then reads nothing; say what it is instead.
  if (known && S_ISDIR(info.st_mode)) throw InputError(path, "", "is a folder; expected a file");
  // Opening a FIFO blocks until a writer comes, and a device (/dev/zero) never ends: neither is
  // opened. Standard input is read through read_text_stream ("-").
  if (known && !S_ISREG(info.st_mode)) {
    throw InputError(path, "",
                     fmt::format("is not a regular file ({}); expected a file",
                                 special_file_kind(info.st_mode)));
  }
  if (known && S_ISREG(info.st_mode) && static_cast<std::uint64_t>(info.st_size) > max_bytes) {
    fail_too_large(path, max_bytes);
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", "cannot open file for reading");
  std::string text;
  if (known && S_ISREG(info.st_mode)) {
    text.reserve(static_cast<std::size_t>(info.st_size) + spare_capacity_bytes);
  }
  append_bounded(in, path, max_bytes, text);
  if (in.bad()) throw InputError(path, "", "cannot open file for reading");
  if (text.capacity() < text.size() + spare_capacity_bytes) {
    text.reserve(text.size() + spare_capacity_bytes);
  }
  return text;
}

std::string read_text_stream(std::istream& in, const std::string& name, std::uint64_t max_bytes) {
  std::string text;
  append_bounded(in, name, max_bytes, text);
  if (in.bad()) throw InputError(name, "", "cannot read it");
  return text;
}

}  // namespace detail

std::string read_text_file(const std::string& path, std::size_t spare_capacity_bytes) {
  return detail::read_text_file(path, spare_capacity_bytes, kMaxInputFileBytes);
}

std::string read_text_stream(std::istream& in, const std::string& name) {
  return detail::read_text_stream(in, name, kMaxInputFileBytes);
}

}  // namespace linksim
