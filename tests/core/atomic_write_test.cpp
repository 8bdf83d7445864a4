#include "sim/core/atomic_write.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "sim/core/error.hpp"
#include "tests/support/temp_files.hpp"

namespace linksim {
namespace {

using testing::read_file;
using testing::TempDir;
namespace fs = std::filesystem;

TEST(AtomicWriteTest, AllFilesOrNone) {
  TempDir dir;
  const std::string a = dir.path() + "/a.txt";
  const std::string b = dir.write("b.txt", "old");
  // b exists and force is off: nothing is written, a included.
  EXPECT_THROW(write_files_atomically({{a, "A"}, {b, "B"}}, false), InputError);
  EXPECT_FALSE(fs::exists(a));
  EXPECT_EQ(read_file(b), "old");
  write_files_atomically({{a, "A"}, {b, "B"}}, true);
  EXPECT_EQ(read_file(a), "A");
  EXPECT_EQ(read_file(b), "B");
  // Nothing but the two files is left in the folder.
  int count = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path()))
    ++count;
  EXPECT_EQ(count, 2);
}

TEST(AtomicWriteTest, ReplacesALinkInsteadOfWritingThroughIt) {
  TempDir dir;
  const std::string victim = dir.write("victim.txt", "keep");
  const std::string link = dir.path() + "/out.txt";
  fs::create_symlink(victim, link);
  write_file_atomically(link, "new", true);
  EXPECT_FALSE(fs::is_symlink(link));
  EXPECT_EQ(read_file(link), "new");
  EXPECT_EQ(read_file(victim), "keep");
}

TEST(AtomicWriteTest, RefusesWhatCannotBeWritten) {
  TempDir dir;
  try {
    check_output_destination(dir.path() + "/missing/x.txt", false);
    FAIL() << "a missing folder was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              dir.path() + "/missing/x.txt: folder " + dir.path() + "/missing does not exist");
  }
  EXPECT_THROW(check_output_destination(dir.path(), true), InputError);
  EXPECT_NO_THROW(check_output_destination(dir.path() + "/new.txt", false));
}

}  // namespace
}  // namespace linksim
