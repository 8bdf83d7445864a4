#pragma once
// A printed `nvidia-smi topo -m` matrix as a full square of cells, for the importer: rows by
// label, and a lookup that falls back to the mirror cell where a NIC row is missing (the GPU
// rows carry every GPU-NIC cell).

#include <map>
#include <string>

#include "sim/topo/smi_matrix.hpp"

namespace linksim::topo {

class SmiCells {
 public:
  explicit SmiCells(const SmiMatrix& matrix);
  // The class between columns r and c ("X" on the diagonal); "" where neither row prints it.
  std::string operator()(std::size_t r, std::size_t c) const;
  // The row of column `col`, or nullptr when the printout has none.
  const SmiRow* row(std::size_t col) const;
  // The line to blame for cell (r, c): row r's, else row c's, else the header's.
  int line_of(std::size_t r, std::size_t c) const;
  const SmiMatrix& matrix() const { return m_; }

 private:
  const SmiMatrix& m_;
  std::map<std::string, const SmiRow*> rows_;
};

bool is_smi_gpu_column(const std::string& name);

}  // namespace linksim::topo
