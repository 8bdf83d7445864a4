#include "sim/core/memory_bound.hpp"

#include <fmt/format.h>
#include <malloc.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <string>
#include <utility>

namespace linksim {
namespace {

std::atomic<std::size_t> g_bound{0};
std::atomic<std::size_t> g_in_use{0};
// The innermost phase of this thread. A plain char buffer would avoid allocating here, but a
// phase is set a few times a run, never per allocation.
thread_local std::string t_phase;

// A byte count in binary units, for the message: value and unit.
std::pair<double, const char*> binary_bytes(std::size_t bytes) {
  const double b = static_cast<double>(bytes);
  if (b >= 1024.0 * 1024 * 1024) return {b / (1024.0 * 1024 * 1024), "GiB"};
  if (b >= 1024.0 * 1024) return {b / (1024.0 * 1024), "MiB"};
  if (b >= 1024.0) return {b / 1024.0, "KiB"};
  return {b, "B"};
}

void* counted_alloc(std::size_t n, std::size_t align) {
  const std::size_t bound = g_bound.load(std::memory_order_relaxed);
  if (bound != 0) {
    const std::size_t held = g_in_use.load(std::memory_order_relaxed);
    if (held + n > bound) throw MemoryBoundExceeded(n, held, bound, t_phase.c_str());
  }
  void* p = nullptr;
  if (align > alignof(std::max_align_t)) {
    if (posix_memalign(&p, align, n == 0 ? 1 : n) != 0) p = nullptr;
  } else {
    p = std::malloc(n == 0 ? 1 : n);
  }
  if (p == nullptr) throw std::bad_alloc();
  g_in_use.fetch_add(malloc_usable_size(p), std::memory_order_relaxed);
  return p;
}

void counted_free(void* p) noexcept {
  if (p == nullptr) return;
  g_in_use.fetch_sub(malloc_usable_size(p), std::memory_order_relaxed);
  std::free(p);
}

}  // namespace

void set_memory_bound(std::size_t bytes) {
  g_bound.store(bytes, std::memory_order_relaxed);
}
std::size_t memory_bound() {
  return g_bound.load(std::memory_order_relaxed);
}
std::size_t memory_in_use() {
  return g_in_use.load(std::memory_order_relaxed);
}

std::size_t default_memory_bound() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_bytes = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_bytes <= 0) return 0;
  return static_cast<std::size_t>(static_cast<double>(pages) * static_cast<double>(page_bytes) *
                                  0.8);
}

MemoryBoundExceeded::MemoryBoundExceeded(std::size_t requested_bytes, std::size_t in_use_bytes,
                                         std::size_t bound, const char* phase) noexcept
    : requested_(requested_bytes), in_use_(in_use_bytes), bound_(bound) {
  const auto [bound_value, bound_unit] = binary_bytes(bound_);
  const auto [held_value, held_unit] = binary_bytes(in_use_);
  const auto [asked_value, asked_unit] = binary_bytes(requested_);
  const bool named = phase != nullptr && phase[0] != '\0';
  // format_to_n into the object's own buffer: no allocation, cut at its size.
  const auto end = fmt::format_to_n(
      message_.data(), message_.size() - 1,
      "the run needs more memory than --max-memory allows ({:.1f} {}): it held {:.1f} {} and "
      "asked for {:.1f} {} more{}{}; give --max-memory a larger bound if the machine has it, "
      "or ask a smaller question",
      bound_value, bound_unit, held_value, held_unit, asked_value, asked_unit,
      named ? " while " : "", named ? phase : "");
  *end.out = '\0';
}

MemoryPhase::MemoryPhase(std::string what) : previous_(std::move(t_phase)) {
  t_phase = std::move(what);
}

MemoryPhase::~MemoryPhase() {
  t_phase = std::move(previous_);
}

}  // namespace linksim

// The counting allocator (see memory_bound.hpp). Every form of operator new and delete, so that
// what one allocates the other frees.
void* operator new(std::size_t n) {
  return linksim::counted_alloc(n, 0);
}
void* operator new[](std::size_t n) {
  return linksim::counted_alloc(n, 0);
}
void* operator new(std::size_t n, std::align_val_t a) {
  return linksim::counted_alloc(n, static_cast<std::size_t>(a));
}
void* operator new[](std::size_t n, std::align_val_t a) {
  return linksim::counted_alloc(n, static_cast<std::size_t>(a));
}
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  try {
    return linksim::counted_alloc(n, 0);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  try {
    return linksim::counted_alloc(n, 0);
  } catch (...) {
    return nullptr;
  }
}
void operator delete(void* p) noexcept {
  linksim::counted_free(p);
}
void operator delete[](void* p) noexcept {
  linksim::counted_free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  linksim::counted_free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  linksim::counted_free(p);
}
void operator delete(void* p, std::align_val_t) noexcept {
  linksim::counted_free(p);
}
void operator delete[](void* p, std::align_val_t) noexcept {
  linksim::counted_free(p);
}
void operator delete(void* p, std::size_t, std::align_val_t) noexcept {
  linksim::counted_free(p);
}
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept {
  linksim::counted_free(p);
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
  linksim::counted_free(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept {
  linksim::counted_free(p);
}
