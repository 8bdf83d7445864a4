#pragma once
// Output files are written whole or not at all, and never through someone else's name.
//
// Each file's text goes to a temporary file created exclusively in the target's folder: an
// unnamed O_TMPFILE where the file system has it, so a killed process leaves nothing behind
// (otherwise a unique mkstemp name). A new file is then linked straight to the target's name
// (linkat, which fails when any entry of that name exists, so "no overwrite without force" holds
// even against an entry that appears after the check). Only a replacement (force, over an
// existing entry) needs a step between: the file gets a hidden name ".NAME.linksim-locked-XXXXXX"
// and is renamed over the target. A process killed in that step leaves the hidden file; a later
// write into the same folder removes such files once their writer is gone
// (stale_temporaries.hpp). rename() replaces a symbolic link at the target itself, and linkat
// never follows one: neither writes through a link. A folder is never replaced.
//
// Streams and devices are written in place, never replaced: an existing destination that is not
// a regular file once links are followed (a FIFO, a terminal), and anything under /dev or /proc
// (/dev/stdout, /dev/null, /dev/full). No --force is needed, as nothing is overwritten; a short
// write (/dev/full) is an error.
//
// A command with several outputs checks every destination before it does its work
// (check_output_destination), then writes them together (write_files_atomically): all the
// temporary files are written and the replacements named first; then the new files are linked,
// and taken back if one of them (or a stream) fails; the renames of the replacements come last.

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
// (a failure while renaming a replacement over its target, which only an I/O error or a folder
// changed under it causes, is the exception: the files renamed before it stay).
void write_files_atomically(const std::vector<std::pair<std::string, std::string>>& files,
                            bool force);

}  // namespace linksim
