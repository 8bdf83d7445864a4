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

// Whether a destination means standard output.
inline bool is_stdout(const std::string& path) {
  return path.empty() || path == "-";
}

}  // namespace linksim::cli
