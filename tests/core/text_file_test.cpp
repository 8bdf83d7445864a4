// The one reader of input files: its size limit (checked up front for a regular file, while
// reading for a stream) and its refusal of folders, devices and FIFOs.
#include "sim/core/text_file.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
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

// A device is not read at all (/dev/zero has no end; it was read up to the limit), and a FIFO is
// not opened (open() blocks until a writer comes: `topo list` hung on one in LINKSIM_DATA).
TEST(TextFileTest, RefusesADeviceOrAFifoUnopened) {
  EXPECT_EQ(error_of([] { read_text_file("/dev/zero"); }),
            "/dev/zero: is not a regular file (a character device); expected a file");
  TempDir dir;
  const std::string fifo = dir.path() + "/pipe.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(error_of([&] { read_text_file(fifo); }),
            fifo + ": is not a regular file (a FIFO); expected a file");
}

TEST(TextFileTest, StopsReadingAStreamOncePastTheLimit) {
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
