#pragma once
// Terminal escape sequences in an `nvidia-smi topo -m` printout. Recent drivers underline the
// header (ESC[4m ... ESC[0m) when stdout is a terminal, and a capture made with `script` or a
// pasted terminal log keeps them; they are no part of the matrix.

#include <string>

namespace linksim::topo {

// `text` without its escape sequences: every CSI sequence (ESC '[', parameter bytes 0x30-0x3F,
// intermediate bytes 0x20-0x2F, one final byte 0x40-0x7E; ECMA-48 5.4) and every other escape
// sequence (ESC, intermediate bytes 0x20-0x2F, one final byte 0x30-0x7E: `tput sgr0`'s ESC ( B,
// ESC M). Also the remnant of a select-graphic-rendition sequence whose ESC byte a paste lost
// ("[4m", "[0m", "[1;31m"): GitHub issues hold the underlined header as "\t[4mGPU0 ... ID[0m",
// and nothing else in a printout is a '[' followed by digits and 'm'. Newlines are never
// removed, so line numbers stay those of the original text. A sequence cut off by the end of
// the text or by a newline is dropped up to there.
std::string strip_terminal_escapes(const std::string& text);

}  // namespace linksim::topo
