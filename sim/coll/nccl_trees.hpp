#pragma once
// NCCL's trees between nodes, shared by the algorithms that run them (Tree, NVLSTree): the
// double binary tree over node indices (src/graph/trees.cc ncclGetBtree, ncclGetDtree) and each
// node ring's chains, one per node, headed by the GPU whose NIC the ring leaves through.

#include <vector>

#include "sim/coll/communicator.hpp"

namespace linksim::coll {

// The parent of node `rank` in tree `t` of NCCL's double binary tree over `n` nodes, -1 for
// the root (t = 0: the binary tree; 1: its mirror for even `n`, or the tree shifted by one for
// odd `n`).
int dtree_parent(int n, int rank, int t);
// Edges from node `rank` to its root in tree `t`.
int dtree_depth(int n, int rank, int t);
// The deepest branch of either tree over `n` nodes.
int dtree_max_depth(int n);

// The chains of one node ring: its runs of ranks on one host, head first, in ring order (so
// chain j is node j's).
std::vector<std::vector<int>> node_chains(const Communicator& comm, const Ring& ring);

}  // namespace linksim::coll
