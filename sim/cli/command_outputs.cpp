#include "sim/cli/command_outputs.hpp"

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "sim/cli/gnuplot.hpp"
#include "sim/core/atomic_write.hpp"
#include "sim/core/error.hpp"

namespace linksim::cli {
namespace {

// Two spellings of one file (a/../b, ./b) are the same destination.
std::string canonical_name(const std::string& path) {
  std::error_code ec;
  const auto p = std::filesystem::weakly_canonical(path, ec);
  return ec ? path : p.string();
}

}  // namespace

CLI::Validator output_file_name() {
  return CLI::Validator(
      [](std::string& name) {
        return name.empty() ? std::string(
                                  "expected a file name (or - for standard output), got "
                                  "an empty one")
                            : std::string();
      },
      "");
}

void add_text_output(CLI::App* cmd, TextOutput& output, bool short_name) {
  cmd->add_option(short_name ? "-o,--output" : "--output", output.path,
                  "Write the printout here instead of standard output (- is standard output)")
      ->check(output_file_name());
  cmd->add_flag("--force", output.force, "Replace the output file if it exists");
}

void CommandOutputs::claim(const std::string& path) {
  if (is_stdout(path)) return;
  const std::string name = canonical_name(path);
  if (std::find(claimed_.begin(), claimed_.end(), name) != claimed_.end()) {
    throw InputError(path, "", "is named as two outputs of one command; name two files");
  }
  check_output_destination(path, force_);
  claimed_.push_back(name);
}

void CommandOutputs::claim_picture(const std::string& path) {
  if (path.empty()) return;
  if (path == "-") throw InputError("-", "", "a picture cannot go to standard output; name a file");
  check_picture_type(path);
  claim(path);
}

void CommandOutputs::put(const std::string& path, std::string contents) {
  if (is_stdout(path)) {
    stdout_text_ += contents;
    return;
  }
  files_.emplace_back(path, std::move(contents));
}

void CommandOutputs::write() {
  if (!files_.empty()) write_files_atomically(files_, force_);
  files_.clear();
  std::cout << stdout_text_ << std::flush;
  stdout_text_.clear();
}

}  // namespace linksim::cli
