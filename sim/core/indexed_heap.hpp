#pragma once
// A min-heap with at most one entry per id (ids are small integers), whose entry can be replaced
// in place. Where an event is rescheduled again and again, a plain priority queue keeps every
// superseded copy until its time comes: the engine's flow ends move with every rate change
// (measured: seven stale ends for each live one in a two-node all-reduce, and a queue ten times
// longer), and the solver's link fill levels with every flow that freezes on them.
//
// Entries are ordered by `Entry::operator>` (the smallest pops first), which must be a strict
// weak order; ties pop in an unspecified order, so callers that need determinism give entries
// with distinct ids distinct keys.

#include <cstdint>
#include <limits>
#include <vector>

namespace linksim {

template <class Entry>
class IndexedHeap {
 public:
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  // REQUIRES: !empty().
  const Entry& top() const { return heap_.front().entry; }
  std::uint32_t top_id() const { return heap_.front().id; }

  bool contains(std::uint32_t id) const {
    return id < position_.size() && position_[id] != kAbsent;
  }
  // REQUIRES: contains(id).
  const Entry& at(std::uint32_t id) const { return heap_[position_[id]].entry; }

  // Inserts the id's entry, or replaces the one it has.
  void set(std::uint32_t id, const Entry& entry) {
    if (id >= position_.size()) position_.resize(static_cast<std::size_t>(id) + 1, kAbsent);
    std::uint32_t at = position_[id];
    if (at == kAbsent) {
      at = static_cast<std::uint32_t>(heap_.size());
      heap_.push_back({entry, id});
      position_[id] = at;
      sift_up(at);
      return;
    }
    const bool later = entry > heap_[at].entry;
    heap_[at].entry = entry;
    if (later) {
      sift_down(at);
    } else {
      sift_up(at);
    }
  }

  // REQUIRES: !empty().
  void pop() {
    position_[heap_.front().id] = kAbsent;
    const Node last = heap_.back();
    heap_.pop_back();
    if (heap_.empty()) return;
    place(0, last);
    sift_down(0);
  }

 private:
  static constexpr std::uint32_t kAbsent = std::numeric_limits<std::uint32_t>::max();
  struct Node {
    Entry entry;
    std::uint32_t id;
  };

  void place(std::uint32_t at, const Node& node) {
    heap_[at] = node;
    position_[node.id] = at;
  }
  void sift_up(std::uint32_t at) {
    const Node node = heap_[at];
    while (at > 0) {
      const std::uint32_t parent = (at - 1) / 2;
      if (!(heap_[parent].entry > node.entry)) break;
      place(at, heap_[parent]);
      at = parent;
    }
    place(at, node);
  }
  void sift_down(std::uint32_t at) {
    const Node node = heap_[at];
    const auto n = static_cast<std::uint32_t>(heap_.size());
    for (;;) {
      std::uint32_t child = 2 * at + 1;
      if (child >= n) break;
      if (child + 1 < n && heap_[child].entry > heap_[child + 1].entry) ++child;
      if (!(node.entry > heap_[child].entry)) break;
      place(at, heap_[child]);
      at = child;
    }
    place(at, node);
  }

  std::vector<Node> heap_;
  std::vector<std::uint32_t> position_;  // per id: index in heap_, or kAbsent
};

}  // namespace linksim
