// Real `nvidia-smi topo -m` captures (tests/data/real/smi, and the excerpts in tests/data/smi),
// each from a public source named on its first line: every one imports and re-prints exactly,
// or fails with the exact error naming the line that stops it (issue 37, item 1).
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <cctype>
#include <sstream>
#include <string>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/topo/loader.hpp"
#include "sim/topo/routing.hpp"
#include "sim/topo/smi_matrix.hpp"
#include "sim/topo/smi_matrix_ansi.hpp"
#include "sim/topo/smi_matrix_compare.hpp"
#include "sim/topo/smi_matrix_format.hpp"
#include "sim/topo/smi_matrix_import.hpp"
#include "sim/topo/smi_matrix_parse.hpp"
#include "tests/support/temp_files.hpp"
#include "tests/support/thrown_message.hpp"

namespace linksim::topo {
namespace {

struct Capture {
  std::string file;        // under tests/data/
  std::string gpu_model;   // the catalog's closest model: printouts do not name the GPU
  std::string cpu_vendor;  // as the source describes the host (intel when it does not)
  // The exact error, or "" where the capture imports.
  std::string error;
  // Where the re-printed text must equal the capture's (tabs expanded to 8 columns, as a
  // terminal shows them, and trailing blanks dropped): its first `text_lines` lines after the
  // source line, or all of them (-1). An excerpt that adds a note of its own stops earlier.
  int text_lines = -1;
  // Whether the capture kept nvidia-smi's tabs, so the re-printed text is byte for byte the
  // capture's.
  bool byte_identical = false;
};

std::ostream& operator<<(std::ostream& out, const Capture& c) {
  return out << c.file;
}

// The captures. GPU models: the A800 is an A100 with fewer NVLinks (NV8 fits an A100's 12), the
// RTX 6000 Ada shares the L40S's AD102 die, the B300 is closest to the B200 (NV18 either way);
// the others are what their sources say.
const std::vector<Capture> kCaptures = {
    {"real/smi/dgx-a100-10nic.txt", "A100-SXM4-80GB", "amd", "", -1, true},
    {"real/smi/h100-8x-8nic-sglang.txt", "H100-SXM5-80GB", "intel", "", -1, false},
    // A recent driver's underlined header, its ESC bytes lost in the paste ("[4mGPU0").
    {"real/smi/b300-8x-9nic-underlined.txt", "B200", "intel", "", -1, false},
    {"real/smi/a800-8x-4nic-crlf.txt", "A100-SXM4-80GB", "intel", "", -1, false},
    {"real/smi/rtx6000ada-4x-asus-esc8000a.txt", "L40S", "amd", "", -1, false},
    {"real/smi/rtx6000ada-2x-puget-wrx90.txt", "L40S", "amd", "", -1, false},
    {"real/smi/h800-8x-cut-columns.txt", "H800-SXM5-80GB", "intel",
     "real/smi/h800-8x-cut-columns.txt: at line 3: GPU0 CPU Affinity \"-31,64-95\": expected "
     "CPU numbers such as 0-31,64-95"},
    // A blog post's 8x H20 on an AMD host (its lspci shows AMD host bridges).
    {"real/smi/h20-8x-2nic-arthurchiao.txt", "H20", "amd", "", -1, false},
    // 4x A10 whose every cell is SYS though all share NUMA node 0.
    {"real/smi/a10-4x-2nic-all-sys.txt", "A10", "intel", "", -1, false},
    // 8x A100 with 17 NICs, all on NUMA node 0 yet SYS from each NVLinked pair's NICs to the
    // other pairs' (a host with NUMA hidden, or a VM).
    // Every GPU on NUMA 0, yet each NV12 pair SYS to the other pairs' NICs (a VM): one CPU node
    // per pair, not one for all.
    {"real/smi/a100-8x-17nic-single-numa.txt", "A100-SXM4-80GB", "intel", "", -1, false},
    {"real/smi/rtx4090-8x-2nic-gpuallocator.txt", "RTX-4090", "intel", "", -1, false},
    {"real/smi/l40s-4x-2nic-warpem.txt", "L40S", "intel", "", -1, false},
    // A Threadripper 3975WX workstation (the title names it), posted with its tabs.
    {"real/smi/rtx5090-2x-threadripper.txt", "RTX-5090", "amd", "", -1, true},
    {"smi/a100-8x-nvlink-pairs.txt", "A100-SXM4-80GB", "amd", "", -1, false},
    {"smi/rtx3090-4x-nvlink-pairs.txt", "RTX-3090", "amd", "", -1, false},
    // The excerpt adds its own note on the p2p status after the two rows.
    {"smi/rtx2080ti-2x.txt", "RTX-2080-Ti", "intel", "", 3, false},
    {"smi/dgx-1v.txt", "V100-SXM2-32GB", "intel",
     "smi/dgx-1v.txt: at line 2: column GPU5 has no row; importing needs every GPU row in full"},
    {"smi/dgx-a100.txt", "A100-SXM4-40GB", "amd",
     "smi/dgx-a100.txt: at line 2: column GPU5 has no row; importing needs every GPU row in full"},
    {"smi/hgx-h100-18nic.txt", "H100-SXM5-80GB", "intel",
     "smi/hgx-h100-18nic.txt: at line 2: column GPU4 has no row; importing needs every GPU row "
     "in full"},
};

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    out.push_back(line);
  if (!text.empty() && text.back() == '\n') out.emplace_back();  // the text after the last \n
  return out;
}

// A line as a terminal shows it: escapes and a CR dropped, tabs expanded to 8-column stops,
// trailing blanks dropped.
std::string as_shown(const std::string& line) {
  std::string out;
  for (char c : strip_terminal_escapes(line)) {
    if (c == '\r') continue;
    if (c == '\t') {
      do {
        out += ' ';
      } while (out.size() % 8 != 0);
    } else {
      out += c;
    }
  }
  while (!out.empty() && out.back() == ' ')
    out.pop_back();
  return out;
}

// The capture's text after its "# source:" line.
std::string printout_of(const std::string& text) {
  EXPECT_EQ(text.rfind("# source: https://", 0), 0u) << "the first line names the source";
  return text.substr(text.find('\n') + 1);
}

class RealSmiCaptureTest : public ::testing::TestWithParam<Capture> {};

TEST_P(RealSmiCaptureTest, ImportsAndReprintsExactlyOrNamesWhatStopsIt) {
  const Capture& c = GetParam();
  const std::string text =
      linksim::testing::read_file(linksim::testing::source_dir() + "/tests/data/" + c.file);
  SmiImportOptions options;
  options.gpu_model = c.gpu_model;
  options.cpu_vendor = c.cpu_vendor;
  options.source = c.file;
  if (!c.error.empty()) {
    EXPECT_EQ(linksim::testing::thrown_message<InputError>(
                  [&] { import_smi(parse_smi_printout(text, c.file), options); }),
              c.error);
    return;
  }
  const SmiMatrix printed = parse_smi_printout(text, c.file);
  const SmiImport imported = import_smi(printed, options);
  const Topology t = parse_topology(imported.document, c.file + " (imported)");
  SmiMatrix reprinted = smi_matrix(t, Router(t));
  // Every cell, NIC name and affinity the capture shows comes back.
  EXPECT_EQ(compare_smi(printed, reprinted), std::vector<std::string>{});
  // And the text: printed with the capture's affinity columns (an older driver prints fewer),
  // it is the capture's, line for line, including the empty line that ends a NIC legend.
  reprinted.affinity_columns = printed.affinity_columns;
  const std::string ours = format_smi_matrix(reprinted);
  const std::string theirs = printout_of(text);
  if (c.byte_identical) {
    EXPECT_EQ(ours, theirs);
    return;
  }
  const auto our_lines = lines_of(ours);
  const auto their_lines = lines_of(theirs);
  const std::size_t n =
      c.text_lines < 0 ? their_lines.size() : static_cast<std::size_t>(c.text_lines);
  ASSERT_LE(n, their_lines.size());
  ASSERT_LE(n, our_lines.size()) << ours;
  for (std::size_t i = 0; i < n; ++i)
    EXPECT_EQ(as_shown(our_lines[i]), as_shown(their_lines[i])) << c.file << " line " << i + 2;
}

INSTANTIATE_TEST_SUITE_P(Corpus, RealSmiCaptureTest, ::testing::ValuesIn(kCaptures),
                         [](const ::testing::TestParamInfo<Capture>& info) {
                           std::string name;
                           for (char ch : info.param.file)
                             name += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
                           return name;
                         });

// The corpus holds what the issue asks for: at least 19 captures, each with its source.
TEST(RealSmiCaptureTest, CorpusHoldsNineteenCapturesWithTheirSources) {
  EXPECT_GE(kCaptures.size(), 19u);
  for (const auto& c : kCaptures) {
    const std::string text =
        linksim::testing::read_file(linksim::testing::source_dir() + "/tests/data/" + c.file);
    EXPECT_EQ(text.rfind("# source: https://", 0), 0u) << c.file;
  }
}

}  // namespace
}  // namespace linksim::topo
