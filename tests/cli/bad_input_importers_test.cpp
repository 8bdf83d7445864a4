// Bad input through the command line (issue 13, items 5-10 and 13): exit 2, one stderr line
// naming the file and where in it, nothing on stdout, no output file.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "sim/topo/gpu_model.hpp"
#include "tests/support/temp_files.hpp"
#include "tests/support/tiny_model.hpp"

namespace linksim {
namespace {

using testing::read_file;
using testing::run_linksim;
using testing::shell_quote;
using testing::source_dir;
using testing::TempDir;

// Runs `args`; expects exit 2, an empty stdout, a single stderr line that contains `part`, and
// no file at `output` when one is given.
void expect_refused(const std::string& args, const std::string& part,
                    const std::string& output = "") {
  const auto r = run_linksim(args);
  EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
  EXPECT_EQ(r.out, "") << args;
  EXPECT_EQ(r.err.rfind("linksim: error: ", 0), 0u) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "more than one line:\n" << r.err;
  EXPECT_NE(r.err.find(part), std::string::npos) << args << "\n" << r.err;
  if (!output.empty()) {
    EXPECT_FALSE(std::filesystem::exists(output)) << output;
  }
}

std::string calibrate_data(const std::string& name) {
  return read_file(source_dir() + "/tests/data/calibrate/" + name);
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

TEST(BadInputImporters, NcclTestsLogsForFit) {
  TempDir dir;
  const std::string good = calibrate_data("rtx2080ti-2x-all_reduce_perf.txt");
  const std::string out = dir.path() + "/calibrated.json";
  const auto fit = [&](const std::string& name, const std::string& text) {
    return "fit --topology rtx2080ti-2x --date 2026-01-01 --nccl-tests " +
           shell_quote(dir.write(name, text)) + " -o " + shell_quote(out);
  };
  // A second header without time columns: a heap overflow before.
  expect_refused(fit("twice.txt", replaced(good, "# Out of bounds", "#  size count type\n#")),
                 "twice.txt: at line 23: a second column header", out);
  expect_refused(fit("zero-time.txt", replaced(good, "-1    12.25", "-1    0.00")),
                 "zero-time.txt: at line 16: time (us): expected a positive number", out);
  expect_refused(fit("negative-size.txt", replaced(good, "           8   ", "          -8   ")),
                 "negative-size.txt: at line 16: size (B)", out);
  // The header is line 7; the machine has 2 GPUs.
  expect_refused(fit("eight.txt", replaced(good, "nGpus 2", "nGpus 8")),
                 "eight.txt: at line 7: one process drives 1 x 8 = 8 GPUs but the topology has 2",
                 out);
  expect_refused(fit("billion.txt", replaced(good, "nGpus 2", "nGpus 1000000000")),
                 "billion.txt: at line 7: nGpus: 1000000000 is above", out);
  expect_refused(fit("threads.txt", replaced(good, "nThread 1", "nThread 0")),
                 "threads.txt: at line 7: nThread: expected at least 1", out);
  expect_refused(fit("redop.txt", replaced(good, "float     sum", "float     xor")),
                 "redop.txt: at line 16: unknown reduction \"xor\"", out);
  expect_refused(fit("count.txt", replaced(good, "   8             2  ", "   8             3  ")),
                 "count.txt: at line 16: size 8 B is not count 3 x 4 B (float)", out);
}

TEST(BadInputImporters, CopyLogsForFit) {
  TempDir dir;
  const std::string out = dir.path() + "/calibrated.json";
  const auto fit = [&](const std::string& flag, const std::string& name, const std::string& text) {
    return "fit --topology rtx2080ti-2x --date 2026-01-01 " + flag + " " +
           shell_quote(dir.write(name, text)) + " -o " + shell_quote(out);
  };
  const std::string p2p = calibrate_data("rtx2080ti-2x-p2p.txt");
  expect_refused(fit("--p2p", "peer99.txt", replaced(p2p, "Peer Device=1", "Peer Device=99")),
                 "peer99.txt: at line 9: device 99 is beyond the topology's 2 GPUs", out);
  const std::string bw = calibrate_data("rtx2080ti-2x-bandwidthTest.txt");
  expect_refused(fit("--bandwidth-test", "huge.txt", replaced(bw, "\t\t\t12.2", "\t\t\t1e308")),
                 "huge.txt: at line 14: bandwidth: 1e308 is above", out);
}

// nvidia-smi printouts: the printout's line is blamed, never the output that was not written.
TEST(BadInputImporters, SmiPrintoutsForTopoImport) {
  TempDir dir;
  const std::string good = read_file(source_dir() + "/tests/data/smi/a100-8x-nvlink-pairs.txt");
  const std::string out = dir.path() + "/imported.json";
  const auto import = [&](const std::string& name, const std::string& text) {
    return "topo import " + shell_quote(dir.write(name, text)) + " --gpu A100-SXM4-80GB -o " +
           shell_quote(out);
  };
  const std::string row0 = "GPU0     X      NV12    NODE";
  // Line 2 is the header, line 3 GPU0's row, line 4 GPU1's.
  expect_refused(import("gpu999.txt", replaced(good, "GPU1    GPU2", "GPU999  GPU2")),
                 "gpu999.txt: at line 2: column GPU999 is out of order: expected GPU1", out);
  expect_refused(import("nv0.txt", replaced(good, row0, "GPU0     X      NV0     NODE")),
                 "nv0.txt: at line 3: GPU0/GPU1 is NV0: expected NV1 to NV64", out);
  // NV64 passes the printout's bound but not the A100's 12 NVLinks.
  const std::string nv64 = replaced(replaced(good, row0, "GPU0     X      NV64    NODE"),
                                    "GPU1    NV12     X", "GPU1    NV64     X");
  expect_refused(import("nv64.txt", nv64),
                 "nv64.txt: at line 3: GPU0/GPU1 is NV64, but a A100-SXM4-80GB has 12 NVLinks",
                 out);
  expect_refused(import("asym.txt", replaced(good, row0, "GPU0     X      PIX     NODE")),
                 "asym.txt: at line 4: GPU1/GPU0 is NV12 but GPU0/GPU1 (line 3) is PIX; the "
                 "matrix must be symmetric",
                 out);
  expect_refused(import("diag.txt", replaced(good, row0, "GPU0    SYS     NV12    NODE")),
                 "diag.txt: at line 3: GPU0/GPU0 is \"SYS\"; a device's own cell is X", out);
  // Found by fuzz_smi_printout: a NUMA affinity that is not a number reached std::stoi.
  expect_refused(import("numa.txt", replaced(good, "0-31,64-95      0\n", "0-31,64-95      M-a\n")),
                 "numa.txt: at line 3: GPU0 NUMA Affinity \"M-a\": expected a NUMA node number",
                 out);
  expect_refused(import("dup.txt", replaced(good, "GPU1    NV12     X", "GPU0    NV12     X")),
                 "dup.txt: at line 4: row GPU0 appears twice (first at line 3)", out);
}

// NCCL's topology XML through `topo import` (issue 38, items 1-3): the whole stderr line.
TEST(BadInputImporters, NcclXmlForTopoImport) {
  TempDir dir;
  const std::string good = read_file(source_dir() + "/tests/data/nccl/dgx1v-4gpu-topo.xml");
  const std::string out = dir.path() + "/imported.json";
  const auto import = [&](const std::string& path, const std::string& gpu) {
    return run_linksim("topo import " + shell_quote(path) + " --gpu " + gpu + " -o " +
                       shell_quote(out));
  };
  // Item 1: a byte order mark first made the XML an nvidia-smi printout: "bom.xml: no
  // nvidia-smi topo -m header found (a line naming GPU0, GPU1, ...)". Now it imports.
  const auto bom = import(dir.write("bom.xml", "\xEF\xBB\xBF" + good), "V100-SXM2-32GB");
  EXPECT_EQ(bom.exit_code, 0) << bom.err;
  EXPECT_EQ(bom.err.rfind("linksim: assumed:\n", 0), 0u) << bom.err;
  EXPECT_TRUE(std::filesystem::exists(out));
  std::filesystem::remove(out);
  // Item 2: an unknown --gpu was blamed on the XML file ("linksim: error: good.xml: unknown GPU
  // model ..."); it is the option's, with the models it may name.
  const std::string xml = dir.write("good.xml", good);
  const auto gpu = import(xml, "Z100");
  EXPECT_EQ(gpu.exit_code, 2);
  EXPECT_EQ(gpu.out, "");
  EXPECT_EQ(gpu.err, fmt::format("linksim: error: --gpu: unknown GPU model \"Z100\"; known "
                                 "models: {}\n",
                                 fmt::join(topo::gpu_model_names(), ", ")));
  // Item 3: dev="-1" was imported as GPU "gpu-1"; the <gpu> of GPU 0 is on line 5.
  const std::string minus_one =
      dir.write("minus-one.xml", replaced(good, "<gpu dev=\"0\"", "<gpu dev=\"-1\""));
  const auto dev = import(minus_one, "V100-SXM2-32GB");
  EXPECT_EQ(dev.exit_code, 2);
  EXPECT_EQ(dev.err, "linksim: error: " + minus_one +
                         ": at line 5: <gpu> dev=\"-1\": expected a CUDA device number, 0 or "
                         "more\n");
  EXPECT_FALSE(std::filesystem::exists(out));
}

// JSON inputs: overflowing numbers, deep nesting and template expressions.
TEST(BadInputImporters, JsonInputs) {
  TempDir dir;
  const std::string topo = read_file(source_dir() + "/topologies/rtx2080ti-2x.json");
  const std::string overflow = dir.write("overflow.json", "{\"title\": 1e309}");
  expect_refused("topo show " + shell_quote(overflow),
                 "overflow.json: at line 1, column 11: malformed JSON: number too large");
  const std::string deep = dir.write("deep.json", std::string(300'000, '['));
  expect_refused("topo show " + shell_quote(deep),
                 "deep.json: at line 1, column 257: JSON nested deeper than 256 levels");
  const std::string parens(20'000, '(');
  const std::string expr = dir.write(
      "expr.json",
      R"({"title": "t", "nodes": [{"id": "gpu", "kind": "gpu", "count": 2, "model": "A100-SXM4-80GB"}],
  "links": [{"for": {"g": "0..0"}, "a": "gpu{)" +
          parens + R"(g}", "b": "gpu1", "kind": "nvlink", "generation": 3, "lanes": 4}]})");
  expect_refused("topo show " + shell_quote(expr), "expression nested deeper than 64 levels");
  const std::string wrap = dir.write(
      "wrap.json",
      R"({"title": "t", "nodes": [{"id": "gpu", "kind": "gpu", "count": 2, "model": "A100-SXM4-80GB"}],
  "links": [{"for": {"g": "0..0"}, "a": "gpu{(g+2)*9223372036854775807*4}", "b": "gpu1",
  "kind": "nvlink", "generation": 3, "lanes": 4}]})");
  expect_refused("topo show " + shell_quote(wrap), "result does not fit a 64-bit integer");
}

// Scenarios: figures beyond their bounds, a plan a gradient_sync job would ignore, and models
// resolved against the scenario's folder.
TEST(BadInputImporters, Scenarios) {
  TempDir dir;
  const auto gradient_sync = [](const std::string& size, const std::string& extra) {
    return R"({"title": "t", "topologies": ["rtx2080ti-2x"], "job": {"kind": "gradient_sync",
      "compute_time": "100 ms", "gradient_size": ")" +
           size + "\"}" + extra + "}";
  };
  expect_refused("run " + shell_quote(dir.write("inf.json", gradient_sync("1e308 GB", ""))),
                 "inf.json: at /job/gradient_size: size \"1e308 GB\" is beyond what linksim "
                 "accepts");
  expect_refused(
      "run " + shell_quote(dir.write("plan.json", gradient_sync("10 GB", R"(, "plan": {})"))),
      "plan.json: at /plan: a gradient_sync job takes no \"plan\"");
  const std::string training =
      R"({"title": "t", "topologies": ["dgx-a100"], "job": {"kind": "training", "global_batch": 8},
      "plan": {"data": 8}, "model": ")";
  expect_refused("run " + shell_quote(dir.write("nomodel.json", training + "no-such-model\"}")),
                 "nomodel.json: at /model: unknown model \"no-such-model\"");
  // A model beside the scenario is found from any working directory.
  std::filesystem::create_directory(dir.path() + "/sub");
  dir.write("sub/tiny.json", linksim::testing::kTinyModelJson);
  const std::string beside = dir.write("sub/beside.json", training + "./tiny.json\"}");
  const auto ok = run_linksim("run " + shell_quote(beside));
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  expect_refused("run " + shell_quote(dir.write("sub/missing.json", training + "./absent.json\"}")),
                 "missing.json: at /model: no model file \"./absent.json\"");
}

// Input files beyond the 1 GiB every reader takes, and folders, through each command that
// reads a file: before, /dev/zero or a huge file was read until memory ran out, and a folder
// was "malformed JSON".
TEST(BadInputImporters, OversizedFilesAndFolders) {
  TempDir dir;
  const std::string big = dir.path() + "/big.txt";
  { std::ofstream(big).put(' '); }
  // Sparse, so nothing is written or read: the size is checked before reading.
  std::filesystem::resize_file(big, (std::uintmax_t{1} << 30) + 1);
  const std::string out = dir.path() + "/out.json";
  const std::string to = " -o " + shell_quote(out);
  const auto commands = [&](const std::string& input) {
    const std::string q = shell_quote(input);
    return std::vector<std::string>{
        "topo check " + q,
        "topo import " + q + " --gpu RTX-3090" + to,
        "fit --topology rtx2080ti-2x --date 2026-01-01 --nccl-tests " + q + to,
        "run " + q + to,
        "run-graph " + q + " -t rtx2080ti-2x" + to,
        "run seed-gradient-sync -t " + q + to,
    };
  };
  for (const auto& args : commands(big)) {
    expect_refused(args, big + ": larger than 1 GiB; expected a text file of at most 1 GiB", out);
  }
  const std::string folder = dir.path() + "/folder";
  std::filesystem::create_directory(folder);
  for (const auto& args : commands(folder)) {
    expect_refused(args, folder + ": is a folder; expected a file", out);
  }
}

// nccl-tests sweeps: the library refuses ranges that would run without end.
TEST(BadInputImporters, NcclTestsSweepRanges) {
  // nccl-tests' -f is an integer (strtol); linksim takes it whole.
  const std::string base = "nccl-tests --topology rtx2080ti-2x all_reduce_perf -g 2 ";
  expect_refused(base + "-b 8 -e 1M -f 1.000001", "nccl-tests -f: expected an integer");
  expect_refused(base + "-b 8 -e 1M -f nan", "nccl-tests -f: expected an integer");
  expect_refused(base + "-b 8 -e 1M -f inf", "nccl-tests -f: expected an integer");
  expect_refused(base + "-b 0 -e 1M -i 1", "would print more than 10000 rows");
}

}  // namespace
}  // namespace linksim
