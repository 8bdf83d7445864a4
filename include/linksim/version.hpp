#pragma once
// The release of linksim a program runs against, as `linksim --version` prints it ("0.1.0").
//
// Part of the installed C++ package (docs/cpp-api.md): standard headers only.

namespace linksim {

const char* version();

}  // namespace linksim
