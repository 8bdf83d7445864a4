#pragma once
// A file of this process's own that each input is written to, for targets whose loader reads a
// path rather than text (a cluster that names files beside it, a sweep grid): the loader is then
// exercised as a user's file would exercise it. The folder is made on first use and removed at
// exit.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

namespace linksim::fuzz {

class InputFile {
 public:
  // `target` names the folder (linksim-fuzz-<target>-<pid>), `name` the file in it.
  InputFile(const std::string& target, const std::string& name)
      : dir_(std::filesystem::temp_directory_path() /
             ("linksim-fuzz-" + target + "-" + std::to_string(::getpid()))),
        path_((dir_ / name).string()) {
    std::filesystem::create_directories(dir_);
  }
  ~InputFile() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  // Replaces the file's contents with `text`; returns its path.
  const std::string& write(std::string_view text) const {
    std::ofstream(path_, std::ios::binary | std::ios::trunc) << text;
    return path_;
  }

 private:
  std::filesystem::path dir_;
  std::string path_;
};

}  // namespace linksim::fuzz
