#pragma once
// The hidden temporary names that output writing (atomic_write.hpp) gives a file that is about
// to replace an existing one, and the removal of such names left behind by a killed process.
//
// A replacing write names its finished file ".NAME.linksim-locked-XXXXXX" (X: letters and
// digits) in the target's folder and renames it over NAME. Its writer takes an exclusive flock
// on the file before the file has that name and holds it until the name is gone (renamed over
// the target, or unlinked), so a file of this pattern whose lock can be taken has no live
// writer: its process was killed between naming and renaming. Locks, unlike process ids, mean
// the same across PID namespaces and are released by the kernel however a process ends.
//
// remove_stale_temporaries deletes only entries that match the pattern, are regular files (a
// symbolic link is never followed or removed), belong to the calling user, and whose lock it
// gets; everything else is left alone: names of the older ".NAME.linksim-NNN" form (written
// without a lock, so their writer's liveness cannot be told), files of other users, and files on
// file systems without flock (the lock cannot be taken, so nothing is removed).

#include <cstddef>
#include <string>
#include <string_view>

namespace linksim {

// ".NAME.linksim-locked-" + `unique`, for the target file name NAME (no folder).
std::string temporary_name(std::string_view target_file_name, std::string_view unique);

// Whether `entry` (a name in a folder, no folder) is of temporary_name's form with a suffix of
// at least 6 letters and digits.
bool is_temporary_name(std::string_view entry);

// Removes the stale temporaries in `folder` (above); returns how many it removed. Errors
// (an unreadable folder, a file that vanished meanwhile) remove nothing and are not reported:
// this is housekeeping, never a reason for a write to fail.
std::size_t remove_stale_temporaries(const std::string& folder);

}  // namespace linksim
