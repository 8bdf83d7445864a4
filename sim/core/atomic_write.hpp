#pragma once
// Output files are written whole or not at all: the text goes to a temporary file beside the
// target, which is then renamed over it. An existing file is replaced only when `force` is set.

#include <string>

namespace linksim {

// Throws InputError (naming `path`) when the file exists and !force, or when writing fails.
void write_file_atomically(const std::string& path, const std::string& contents, bool force);

}  // namespace linksim
