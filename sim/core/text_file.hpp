#pragma once
// Reading a whole input file, with the error every reader gives when it cannot. Every text and
// JSON input goes through here, so one size limit bounds what any input can make linksim hold.

#include <cstddef>
#include <cstdint>
#include <istream>
#include <string>

namespace linksim {

// Largest input file linksim reads (1 GiB): far above any machine, scenario, task graph or log
// it takes, and small enough that /dev/zero or a wrong file is refused instead of filling memory.
inline constexpr std::uint64_t kMaxInputFileBytes = std::uint64_t{1} << 30;

// The file's bytes, with room for `spare_capacity_bytes` more past the end (a parser that reads
// ahead, simdjson's padding). Throws InputError naming `path`:
//   "is a folder; expected a file" for a folder,
//   "cannot open file for reading" when it cannot be opened or read,
//   "larger than 1 GiB; expected a text file of at most 1 GiB" past kMaxInputFileBytes. A
//   regular file's size is checked before reading; a pipe or device is read in chunks and
//   stopped once past the limit.
std::string read_text_file(const std::string& path, std::size_t spare_capacity_bytes = 0);

// The rest of `in` (standard input), named `name` in errors, under the same limit.
std::string read_text_stream(std::istream& in, const std::string& name);

namespace detail {
// read_text_file / read_text_stream with another limit, so tests need not read a GiB.
std::string read_text_file(const std::string& path, std::size_t spare_capacity_bytes,
                           std::uint64_t max_bytes);
std::string read_text_stream(std::istream& in, const std::string& name, std::uint64_t max_bytes);
// "1 GiB", "4 KiB", "100 bytes": a limit as the error states it.
std::string describe_byte_limit(std::uint64_t bytes);
}  // namespace detail

}  // namespace linksim
