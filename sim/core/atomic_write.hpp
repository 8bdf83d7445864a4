#pragma once
// Output files are written whole or not at all, and never through someone else's name.
//
// Each file's text goes to a temporary file created exclusively in the target's folder (an
// unnamed O_TMPFILE where the file system has it, so a killed process leaves nothing behind;
// otherwise a unique mkstemp name), which is then renamed over the target. rename() replaces a
// symbolic link at the target itself and never writes through it. An existing entry is replaced
// only when `force` is set. A folder is never replaced.
//
// Streams and devices are written in place, never replaced: an existing destination that is not
// a regular file once links are followed (a FIFO, a terminal), and anything under /dev or /proc
// (/dev/stdout, /dev/null, /dev/full). No --force is needed, as nothing is overwritten; a short
// write (/dev/full) is an error.
//
// A command with several outputs checks every destination before it does its work
// (check_output_destination), then writes them together (write_files_atomically): all the
// temporary files are written first and renamed only when every one succeeded.

#include <string>
#include <utility>
#include <vector>

namespace linksim {

// Throws InputError (naming `path`) when the destination cannot be written: it exists and
// !force, it is a folder, or its parent folder does not exist or is not a folder.
void check_output_destination(const std::string& path, bool force);

// Throws InputError (naming `path`) when the destination is refused (as above) or writing fails.
void write_file_atomically(const std::string& path, const std::string& contents, bool force);

// (path, contents) pairs. Either every file is in place afterwards, or none was touched
// (a failure while renaming, such as the disk filling up between renames, is the exception:
// the files renamed before it stay).
void write_files_atomically(const std::vector<std::pair<std::string, std::string>>& files,
                            bool force);

}  // namespace linksim
