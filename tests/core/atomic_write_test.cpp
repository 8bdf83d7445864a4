#include "sim/core/atomic_write.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <set>

#include "sim/core/error.hpp"
#include "sim/core/stale_temporaries.hpp"
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

std::set<std::string> entries(const std::string& folder) {
  std::set<std::string> out;
  for (const auto& e : fs::directory_iterator(folder))
    out.insert(e.path().filename().string());
  return out;
}

// A new file is linked straight to its name, and the link refuses an entry that exists by then:
// here the first of two outputs of the same name creates it after both passed the check, so the
// second finds it. Without force nothing may be overwritten, and the first is taken back.
TEST(AtomicWriteTest, ANewFileIsNeverLinkedOverAnEntryThatAppeared) {
  TempDir dir;
  const std::string a = dir.path() + "/a.txt";
  const std::string b = dir.path() + "/b.txt";
  try {
    write_files_atomically({{b, "B"}, {a, "1"}, {a, "2"}}, false);
    FAIL() << "an entry that appeared after the check was overwritten";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), a + ": file exists; pass --force to overwrite it");
  }
  EXPECT_TRUE(entries(dir.path()).empty());  // b and the first a taken back, no temporaries
}

// With force the entry that appeared is replaced through a hidden name: the last text wins, and
// nothing but the outputs is left.
TEST(AtomicWriteTest, WithForceAnEntryThatAppearedIsReplaced) {
  TempDir dir;
  const std::string a = dir.path() + "/a.txt";
  write_files_atomically({{a, "1"}, {a, "2"}}, true);
  EXPECT_EQ(read_file(a), "2");
  EXPECT_EQ(entries(dir.path()), std::set<std::string>{"a.txt"});
}

// A new file is one file with one name: no second link was left at a temporary name.
TEST(AtomicWriteTest, ANewFileHasOneNameAndTheUsersMode) {
  TempDir dir;
  const std::string a = dir.path() + "/new.txt";
  const mode_t mask = ::umask(022);
  write_file_atomically(a, "text", false);
  ::umask(mask);
  struct stat st {};
  ASSERT_EQ(::stat(a.c_str(), &st), 0);
  EXPECT_EQ(st.st_nlink, 1u);
  EXPECT_EQ(st.st_mode & 0777, 0644u);  // 0666 & ~022
  EXPECT_EQ(entries(dir.path()), std::set<std::string>{"new.txt"});
}

// A write into a folder removes what a killed replacing write left there (stale_temporaries.hpp),
// and only that.
TEST(AtomicWriteTest, AWriteRemovesTheTemporaryAKilledRunLeft) {
  TempDir dir;
  const std::string stale = dir.write(temporary_name("out.txt", "k1ll3d"), "half");
  const std::string old_form = dir.write(".out.txt.linksim-123456789", "unknown writer");
  write_file_atomically(dir.path() + "/other.txt", "x", false);
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(old_form));
  EXPECT_EQ(entries(dir.path()),
            (std::set<std::string>{"other.txt", ".out.txt.linksim-123456789"}));
}

}  // namespace
}  // namespace linksim
