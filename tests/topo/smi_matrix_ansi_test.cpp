// Terminal escapes in an `nvidia-smi topo -m` printout (sim/topo/smi_matrix_ansi.hpp): recent
// drivers underline the header when writing to a terminal.
#include "sim/topo/smi_matrix_ansi.hpp"

#include <gtest/gtest.h>

#include "sim/topo/smi_matrix_format.hpp"
#include "sim/topo/smi_matrix_parse.hpp"
#include "tests/support/temp_files.hpp"

namespace linksim::topo {
namespace {

TEST(SmiMatrixAnsiTest, StripsCsiAndTwoByteSequencesKeepingNewlines) {
  EXPECT_EQ(strip_terminal_escapes("\t\x1b[4mGPU0\tGPU1\x1b[0m\nGPU0\n"), "\tGPU0\tGPU1\nGPU0\n");
  EXPECT_EQ(strip_terminal_escapes("\x1b[1;31mred\x1b[m plain"), "red plain");
  EXPECT_EQ(strip_terminal_escapes("a\x1b(B\x1b[mb"), "ab");  // tput sgr0
  EXPECT_EQ(strip_terminal_escapes("a\x1b"
                                   "Mb"),
            "ab");                                          // ESC M (reverse index)
  EXPECT_EQ(strip_terminal_escapes("cut \x1b[4"), "cut ");  // cut off by the end of the text
  EXPECT_EQ(strip_terminal_escapes("x\x1b[4\ny"), "x\ny");  // a newline ends a damaged one
  EXPECT_EQ(strip_terminal_escapes("no escapes\n"), "no escapes\n");
  // The remnants a paste leaves when it drops the ESC byte, and brackets that are not one.
  EXPECT_EQ(strip_terminal_escapes("\t[4mGPU0\tID[0m\n"), "\tGPU0\tID\n");
  EXPECT_EQ(strip_terminal_escapes("[1;31mx [4 [x] [12]"), "x [4 [x] [12]");
}

// The DGX A100 capture as a terminal shows it on a recent driver: the header underlined. It
// reads as the plain capture does, and line numbers stay the file's.
TEST(SmiMatrixAnsiTest, AnUnderlinedHeaderReadsAsThePlainOne) {
  const std::string plain = linksim::testing::read_file(linksim::testing::source_dir() +
                                                        "/tests/data/real/smi/dgx-a100-10nic.txt");
  std::string underlined = plain;
  const auto header = underlined.find("\tGPU0");
  underlined.insert(underlined.find('\n', header), "\x1b[0m");
  underlined.insert(header + 1, "\x1b[4m");
  ASSERT_NE(underlined, plain);
  const SmiMatrix a = parse_smi_printout(plain, "plain.txt");
  const SmiMatrix b = parse_smi_printout(underlined, "underlined.txt");
  EXPECT_EQ(format_smi_matrix(b), format_smi_matrix(a));
  EXPECT_EQ(b.columns, a.columns);
  EXPECT_EQ(b.header_line, 2);
  EXPECT_EQ(b.rows.at(0).line, 3);
  EXPECT_EQ(b.nic_names, a.nic_names);
}

}  // namespace
}  // namespace linksim::topo
