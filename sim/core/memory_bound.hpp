#pragma once
// A bound on the heap a run may hold (the CLI's --max-memory). Every allocation through
// operator new is counted; one that would take the total past the bound is refused before it
// is made, with MemoryBoundExceeded (a std::bad_alloc, so every container stays as it was), and
// the CLI then says what the run held, what it asked for more, and what it was doing. A run that
// would need more memory than the machine has so stops with a clear error instead of swapping
// until the OS kills it.
//
// The counting operator new lives in memory_bound.cpp, which every program that links the
// library links (sim/coll names its MemoryPhase). With no bound set, the default outside the
// CLI, it only counts: an allocation is never refused.

#include <array>
#include <cstddef>
#include <new>
#include <string>

namespace linksim {

// Sets the bound in bytes; 0 removes it. Thread-safe.
void set_memory_bound(std::size_t bytes);
std::size_t memory_bound();
// Bytes held through operator new now (as the allocator sizes them).
std::size_t memory_in_use();
// The default bound: 80% of this machine's physical memory (0 where unknown).
std::size_t default_memory_bound();

// Thrown from operator new, so it allocates nothing itself: its text lives in the object.
class MemoryBoundExceeded : public std::bad_alloc {
 public:
  // `phase`: what the run was doing (MemoryPhase), or "".
  MemoryBoundExceeded(std::size_t requested_bytes, std::size_t in_use_bytes, std::size_t bound,
                      const char* phase) noexcept;
  const char* what() const noexcept override { return message_.data(); }
  std::size_t requested_bytes() const { return requested_; }
  std::size_t in_use_bytes() const { return in_use_; }
  std::size_t bound() const { return bound_; }

 private:
  std::size_t requested_;
  std::size_t in_use_;
  std::size_t bound_;
  std::array<char, 512> message_{};
};

// What this thread is building, for MemoryBoundExceeded's message ("lowering all_reduce of
// 1 GiB on 65,536 ranks"), for the scope of the object; phases nest, the innermost is named.
class MemoryPhase {
 public:
  explicit MemoryPhase(std::string what);
  ~MemoryPhase();
  MemoryPhase(const MemoryPhase&) = delete;
  MemoryPhase& operator=(const MemoryPhase&) = delete;

 private:
  std::string previous_;
};

}  // namespace linksim
