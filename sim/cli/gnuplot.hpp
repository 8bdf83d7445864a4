#pragma once
// Draws a picture with gnuplot and returns its bytes; the caller writes them with the command's
// other outputs. gnuplot is started with an argument vector (no shell) and reads its script on
// standard input; it writes into a private temporary folder, so no name from the command line
// ever reaches gnuplot. That folder's path, under $TMPDIR, does: as a single-quoted gnuplot
// string, a quote doubled, so that no TMPDIR runs a command. Throws InputError naming
// `picture_path` when the extension is not one gnuplot is asked to draw, when gnuplot is
// missing, or when it fails (with its first message); located at "TMPDIR" when TMPDIR holds a
// control character, which no gnuplot string can.

#include <string>

namespace linksim::cli {

// Throws InputError unless `picture_path` names a picture type we can draw (.png, .svg, .pdf).
void check_picture_type(const std::string& picture_path);

std::string render_plot(const std::string& script, const std::string& picture_path);

}  // namespace linksim::cli
