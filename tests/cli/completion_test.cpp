// `linksim completion bash` completes what --help lists, level by level.
#include <gtest/gtest.h>

#include "tests/support/temp_files.hpp"

namespace linksim {
namespace {

using testing::read_file;
using testing::run_linksim;
using testing::shell_quote;
using testing::TempDir;

// What bash's completion function offers for the typed words (the last one being completed).
// A word that is no flag also completes file names (compgen -f), so bash runs in an empty
// folder of its own: the offer must not depend on what the test's working folder holds.
// Before, it ran in that folder, and after `cmake --install build` "linksim topo i" offered
// install_manifest.txt beside "import".
std::string complete(const std::string& script_path, const std::string& words, int cword) {
  TempDir dir;
  const TempDir empty;
  const std::string out = dir.path() + "/reply";
  const std::string cmd =
      "cd " + shell_quote(empty.path()) + " && bash -c " +
      shell_quote("source " + shell_quote(script_path) + "; COMP_WORDS=(" + words +
                  "); COMP_CWORD=" + std::to_string(cword) +
                  "; _linksim; echo \"${COMPREPLY[*]}\" > " + shell_quote(out)) +
      " < /dev/null";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  return read_file(out);
}

TEST(CompletionTest, BashCompletesCommandsAndTheirFlags) {
  TempDir dir;
  const auto r = run_linksim("completion bash");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string script = dir.write("linksim.bash", r.out);
  // Flags of the command typed so far, in the order --help lists them: run has --format and
  // --force among its flags, and nothing else starting with "--fo".
  EXPECT_EQ(complete(script, "linksim run --fo", 2), "--format --force\n");
  // A second level: topo's subcommands starting with "i".
  EXPECT_EQ(complete(script, "linksim topo i", 2), "import\n");
  // nccl-tests: linksim's own flags (the binary's come after its name, as the binary reads them).
  EXPECT_EQ(complete(script, "linksim nccl-tests --top", 2), "--topology\n");
  const auto bad = run_linksim("completion fish");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err, "linksim: error: no completion for shell \"fish\"; expected bash\n");
}

}  // namespace
}  // namespace linksim
