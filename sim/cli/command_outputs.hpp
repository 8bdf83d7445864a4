#pragma once
// What a command writes, checked before it does its work and written only once it has
// succeeded: a command that fails writes none of its outputs, and stdout stays empty.
//
//   CommandOutputs out(force);
//   out.claim(trace_path);            // before the work: refuses now what could not be written
//   out.claim(report_path);           // "" or "-" is standard output
//   ... the work ...
//   out.put(trace_path, trace_text);
//   out.put(report_path, report_text);
//   out.write();                      // files first (atomically, together), then stdout

#include <CLI/CLI.hpp>
#include <string>
#include <utility>
#include <vector>

namespace linksim::cli {

class CommandOutputs {
 public:
  explicit CommandOutputs(bool force) : force_(force) {}

  // Registers a destination and checks it (InputError naming it): an existing file needs
  // --force, a folder or a missing folder is refused, and no file may be named twice. A picture
  // destination is also checked for a type we can draw. An empty path is ignored.
  void claim(const std::string& path);
  void claim_picture(const std::string& path);

  // The contents for a claimed destination ("" or "-": standard output).
  void put(const std::string& path, std::string contents);

  void write();

 private:
  bool force_;
  std::vector<std::string> claimed_;
  std::vector<std::pair<std::string, std::string>> files_;
  std::string stdout_text_;
};

// For -o, --trace and --plot: a name given must not be empty (`-o ''` would otherwise mean
// standard output silently); "-" names standard output.
CLI::Validator output_file_name();

// -o/--output FILE for a command that prints one text (standard output by default, "-" too),
// and --force to replace an existing file. `short_name`: false where the tool a command mimics
// uses -o itself (nccl-tests' reduction op), which leaves --output only.
struct TextOutput {
  std::string path;
  bool force = false;
};
void add_text_output(CLI::App* cmd, TextOutput& output, bool short_name = true);

// Checks the destination first (an existing file needs --force), then writes what `make`
// returns there: a bad destination fails before any work, and a failed command writes nothing.
template <typename Make>
void write_text(const TextOutput& output, Make make) {
  CommandOutputs outputs(output.force);
  outputs.claim(output.path);
  outputs.put(output.path, make());
  outputs.write();
}

// Whether a destination means standard output.
inline bool is_stdout(const std::string& path) {
  return path.empty() || path == "-";
}

}  // namespace linksim::cli
