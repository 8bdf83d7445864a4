#pragma once
// Union-find over indices 0..n-1, each group named by its smallest index (find returns it), so
// that groups come out in index order. Used by the nvidia-smi importer to group columns.

#include <algorithm>
#include <cstddef>
#include <vector>

namespace linksim::topo {

struct IndexGroups {
  std::vector<std::size_t> parent;
  explicit IndexGroups(std::size_t n) : parent(n) {
    for (std::size_t i = 0; i < n; ++i)
      parent[i] = i;
  }
  std::size_t find(std::size_t x) {
    while (parent[x] != x)
      x = parent[x] = parent[parent[x]];
    return x;
  }
  void join(std::size_t a, std::size_t b) {
    a = find(a);
    b = find(b);
    if (a != b) parent[std::max(a, b)] = std::min(a, b);
  }
};

}  // namespace linksim::topo
