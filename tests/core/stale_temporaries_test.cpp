#include "sim/core/stale_temporaries.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>

#include "tests/support/temp_files.hpp"

namespace linksim {
namespace {

using testing::read_file;
using testing::TempDir;
namespace fs = std::filesystem;

TEST(StaleTemporariesTest, TheNamePatternIsExact) {
  EXPECT_EQ(temporary_name("out.json", "Ab12cd"), ".out.json.linksim-locked-Ab12cd");
  EXPECT_TRUE(is_temporary_name(".out.json.linksim-locked-Ab12cd"));
  EXPECT_TRUE(is_temporary_name(temporary_name("a", "0123456789ab")));
  EXPECT_FALSE(is_temporary_name("out.json.linksim-locked-Ab12cd"));     // not hidden
  EXPECT_FALSE(is_temporary_name(".out.json.linksim-locked-Ab12c"));     // 5 characters
  EXPECT_FALSE(is_temporary_name(".out.json.linksim-locked-Ab12c!"));    // not a letter or digit
  EXPECT_FALSE(is_temporary_name(".linksim-locked-Ab12cd"));             // no NAME
  EXPECT_FALSE(is_temporary_name(".out.json.linksim-123456789"));        // the older, unlocked form
  EXPECT_FALSE(is_temporary_name(".out.json.linksim-locked-Ab12cd/x"));  // not one entry
}

// A child process creates and locks a temporary as a replacing write does, and is killed before
// it renames it: the file stays, its lock goes with the process, and the cleaner removes it.
// A temporary whose lock is held (a live writer: here this process, on its own open file) stays.
TEST(StaleTemporariesTest, OnlyAKilledWritersTemporaryIsRemoved) {
  TempDir dir;
  const std::string stale = dir.path() + "/" + temporary_name("out.txt", "k1ll3d");
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const int fd = ::open(stale.c_str(), O_CREAT | O_EXCL | O_WRONLY, 0644);
    if (fd < 0 || ::flock(fd, LOCK_EX) != 0 || ::write(fd, "half", 4) != 4) ::_exit(1);
    ::kill(::getpid(), SIGKILL);
    ::_exit(2);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  ASSERT_EQ(read_file(stale), "half");

  const std::string live = dir.write(temporary_name("live.txt", "w0rk1n"), "writing");
  const int held = ::open(live.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(held, 0);
  ASSERT_EQ(::flock(held, LOCK_EX | LOCK_NB), 0);

  EXPECT_EQ(remove_stale_temporaries(dir.path()), 1u);
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_EQ(read_file(live), "writing");
  ::close(held);
  // Its writer gone, the second one goes too.
  EXPECT_EQ(remove_stale_temporaries(dir.path()), 1u);
  EXPECT_FALSE(fs::exists(live));
}

// Only regular files of the pattern go: a link of that name is neither followed nor removed, nor
// is a folder, nor a file of another name.
TEST(StaleTemporariesTest, LinksFoldersAndOtherNamesStay) {
  TempDir dir;
  const std::string victim = dir.write("victim.txt", "keep");
  const std::string link = dir.path() + "/" + temporary_name("a.txt", "l1nk00");
  fs::create_symlink(victim, link);
  const std::string folder = dir.path() + "/" + temporary_name("b.txt", "f0lder");
  fs::create_directory(folder);
  const std::string other = dir.write(".c.txt.linksim-42", "older form");
  EXPECT_EQ(remove_stale_temporaries(dir.path()), 0u);
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(read_file(victim), "keep");
  EXPECT_TRUE(fs::is_directory(folder));
  EXPECT_EQ(read_file(other), "older form");
  EXPECT_EQ(remove_stale_temporaries(dir.path() + "/missing"), 0u);
}

}  // namespace
}  // namespace linksim
