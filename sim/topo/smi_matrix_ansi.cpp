#include "sim/topo/smi_matrix_ansi.hpp"

namespace linksim::topo {
namespace {

constexpr char kEsc = '\x1b';

bool in_range(char c, int low, int high) {
  const int v = static_cast<unsigned char>(c);
  return v >= low && v <= high;
}

// The index just past the sequence starting at text[i] (an ESC); a newline always ends it, so a
// damaged sequence never swallows a line break.
std::size_t skip_sequence(const std::string& text, std::size_t i) {
  std::size_t j = i + 1;
  if (j >= text.size() || text[j] == '\n') return j;
  if (text[j] != '[') {  // ESC, intermediates, one final byte (ESC ( B, ESC M, ...)
    while (j < text.size() && in_range(text[j], 0x20, 0x2F))
      ++j;
    if (j < text.size() && in_range(text[j], 0x30, 0x7E)) ++j;
    return j;
  }
  ++j;  // CSI: parameters, intermediates, one final byte
  while (j < text.size() && in_range(text[j], 0x30, 0x3F))
    ++j;
  while (j < text.size() && in_range(text[j], 0x20, 0x2F))
    ++j;
  if (j < text.size() && in_range(text[j], 0x40, 0x7E)) ++j;
  return j;
}

// The index just past a select-graphic-rendition remnant "[<digits and ;>m" at text[i] (a '['),
// or i where there is none.
std::size_t skip_sgr_remnant(const std::string& text, std::size_t i) {
  std::size_t j = i + 1;
  while (j < text.size() && (in_range(text[j], '0', '9') || text[j] == ';'))
    ++j;
  return j < text.size() && text[j] == 'm' ? j + 1 : i;
}

}  // namespace

std::string strip_terminal_escapes(const std::string& text) {
  if (text.find(kEsc) == std::string::npos && text.find('[') == std::string::npos) return text;
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] == kEsc) {
      i = skip_sequence(text, i);
      continue;
    }
    if (text[i] == '[') {
      const std::size_t past = skip_sgr_remnant(text, i);
      if (past != i) {
        i = past;
        continue;
      }
    }
    out += text[i++];
  }
  return out;
}

}  // namespace linksim::topo
