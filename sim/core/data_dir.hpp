#pragma once
// Where the shipped machines, models, scenarios and reference data live.
//
// Order: the LINKSIM_DATA environment variable when set and non-empty; else the installed data
// folder beside the binary (<prefix>/share/linksim when the binary is <prefix>/bin/linksim);
// else the source tree the binary was built from. The compiled-in source path is kept in one
// translation unit so that no other object depends on where the tree was checked out.

#include <string>

namespace linksim {

// The folder holding topologies/, models/, scenarios/ and tests/data/reference/. Throws
// InputError naming LINKSIM_DATA when that is set to something that is not a folder.
std::string data_dir();

}  // namespace linksim
