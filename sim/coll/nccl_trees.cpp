#include "sim/coll/nccl_trees.hpp"

#include <algorithm>

namespace linksim::coll {
namespace {

// ncclGetBtree: the parent of `rank` in NCCL's binary tree over `n` ranks, -1 for the root.
int btree_parent(int n, int rank) {
  if (rank == 0) return -1;
  int bit = 1;
  while (bit < n && (bit & rank) == 0)
    bit <<= 1;
  int up = (rank ^ bit) | (bit << 1);
  if (up >= n) up = rank ^ bit;
  return up;
}

}  // namespace

int dtree_parent(int n, int rank, int t) {
  if (t == 0) return btree_parent(n, rank);
  if (n % 2 == 1) {
    const int u = btree_parent(n, (rank - 1 + n) % n);
    return u == -1 ? -1 : (u + 1) % n;
  }
  const int u = btree_parent(n, n - 1 - rank);
  return u == -1 ? -1 : n - 1 - u;
}

int dtree_depth(int n, int rank, int t) {
  int d = 0;
  for (int r = dtree_parent(n, rank, t); r != -1; r = dtree_parent(n, r, t))
    ++d;
  return d;
}

int dtree_max_depth(int n) {
  int most = 0;
  for (int t = 0; t < 2; ++t) {
    for (int j = 0; j < n; ++j)
      most = std::max(most, dtree_depth(n, j, t));
  }
  return most;
}

std::vector<std::vector<int>> node_chains(const Communicator& comm, const Ring& ring) {
  std::vector<std::vector<int>> out;
  for (int r : ring.order) {
    if (out.empty() || comm.host(out.back().front()) != comm.host(r)) out.emplace_back();
    out.back().push_back(r);
  }
  return out;
}

}  // namespace linksim::coll
