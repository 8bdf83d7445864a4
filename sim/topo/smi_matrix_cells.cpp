#include "sim/topo/smi_matrix_cells.hpp"

namespace linksim::topo {

bool is_smi_gpu_column(const std::string& name) {
  return name.rfind("GPU", 0) == 0;
}

SmiCells::SmiCells(const SmiMatrix& matrix) : m_(matrix) {
  for (const auto& r : m_.rows)
    rows_[r.label] = &r;
}

const SmiRow* SmiCells::row(std::size_t col) const {
  const auto it = rows_.find(m_.columns.at(col));
  return it == rows_.end() ? nullptr : it->second;
}

std::string SmiCells::operator()(std::size_t r, std::size_t c) const {
  if (r == c) return "X";
  if (const SmiRow* a = row(r); a != nullptr && a->cells.size() > c) return a->cells[c];
  if (const SmiRow* b = row(c); b != nullptr && b->cells.size() > r) return b->cells[r];
  return "";
}

int SmiCells::line_of(std::size_t r, std::size_t c) const {
  if (const SmiRow* a = row(r); a != nullptr) return a->line;
  if (const SmiRow* b = row(c); b != nullptr) return b->line;
  return m_.header_line;
}

}  // namespace linksim::topo
