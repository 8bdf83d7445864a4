// The one reader of input files: its size limit (checked up front for a regular file, while
// reading for a stream or device) and its refusal of folders.
#include "sim/core/text_file.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "sim/core/error.hpp"
#include "tests/support/temp_files.hpp"
#include "tests/support/thrown_message.hpp"

namespace linksim {
namespace {

using testing::TempDir;

template <class Read>
std::string error_of(Read read) {
  return testing::thrown_message<InputError>(read);
}

TEST(TextFileTest, StatesTheLimitInItsUnit) {
  EXPECT_EQ(kMaxInputFileBytes, 1073741824u);
  EXPECT_EQ(detail::describe_byte_limit(kMaxInputFileBytes), "1 GiB");
  EXPECT_EQ(detail::describe_byte_limit(4096), "4 KiB");
  EXPECT_EQ(detail::describe_byte_limit(3u << 20), "3 MiB");
  EXPECT_EQ(detail::describe_byte_limit(1000), "1000 bytes");
}

TEST(TextFileTest, ReadsAFileWhole) {
  TempDir dir;
  const std::string path = dir.write("a.txt", std::string("one\0two\n", 8));
  EXPECT_EQ(read_text_file(path), std::string("one\0two\n", 8));
  // The room asked for past the end is there (run-graph's reader parses in place).
  const std::string padded = read_text_file(path, 64);
  EXPECT_EQ(padded.size(), 8u);
  EXPECT_GE(padded.capacity(), 72u);
}

TEST(TextFileTest, RefusesARegularFileOverTheLimitBeforeReadingIt) {
  TempDir dir;
  // Sparse: 1 GiB + 1 byte of size, no data, so the test reads nothing if the check comes first.
  const std::string path = dir.path() + "/big.json";
  { std::ofstream(path).put(' '); }
  ASSERT_EQ(::truncate(path.c_str(), static_cast<off_t>(kMaxInputFileBytes + 1)), 0);
  EXPECT_EQ(error_of([&] { read_text_file(path); }),
            path + ": larger than 1 GiB; expected a text file of at most 1 GiB");
  // At the limit it is read (shown with a smaller limit, to keep the test small).
  const std::string small = dir.write("small.txt", std::string(4096, 'x'));
  EXPECT_EQ(detail::read_text_file(small, 0, 4096).size(), 4096u);
  EXPECT_EQ(error_of([&] { detail::read_text_file(small, 0, 4095); }),
            small + ": larger than 4095 bytes; expected a text file of at most 4095 bytes");
}

TEST(TextFileTest, StopsReadingADeviceOncePastTheLimit) {
  // /dev/zero has no size and no end: before, it was read until memory ran out.
  EXPECT_EQ(error_of([] { detail::read_text_file("/dev/zero", 0, 4u << 20); }),
            "/dev/zero: larger than 4 MiB; expected a text file of at most 4 MiB");
  std::istringstream in(std::string(5000, 'y'));
  EXPECT_EQ(error_of([&] { detail::read_text_stream(in, "-", 4096); }),
            "-: larger than 4 KiB; expected a text file of at most 4 KiB");
  std::istringstream fits(std::string(4096, 'y'));
  EXPECT_EQ(detail::read_text_stream(fits, "-", 4096), std::string(4096, 'y'));
}

TEST(TextFileTest, SaysAFolderIsAFolder) {
  TempDir dir;
  EXPECT_EQ(error_of([&] { read_text_file(dir.path()); }),
            dir.path() + ": is a folder; expected a file");
  EXPECT_EQ(error_of([&] { read_text_file(dir.path() + "/absent.json"); }),
            dir.path() + "/absent.json: cannot open file for reading");
}

}  // namespace
}  // namespace linksim
