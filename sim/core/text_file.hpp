#pragma once
// Reading a whole input file, with the error every reader gives when it cannot.

#include <string>

namespace linksim {

// The file's bytes. Throws InputError(path, "", "cannot open file for reading") when it cannot
// be opened.
std::string read_text_file(const std::string& path);

}  // namespace linksim
