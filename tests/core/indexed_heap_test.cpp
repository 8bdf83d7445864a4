#include "sim/core/indexed_heap.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <random>
#include <utility>
#include <vector>

namespace linksim {
namespace {

struct Timed {
  double time_s;
  std::uint32_t tag;  // breaks ties, as the engine's and the solver's events do
  bool operator>(const Timed& o) const {
    return time_s != o.time_s ? time_s > o.time_s : tag > o.tag;
  }
};

std::vector<std::pair<std::uint32_t, double>> drain(IndexedHeap<Timed>& h) {
  std::vector<std::pair<std::uint32_t, double>> out;
  while (!h.empty()) {
    out.emplace_back(h.top_id(), h.top().time_s);
    h.pop();
  }
  return out;
}

TEST(IndexedHeap, PopsInOrderOfTheEntries) {
  IndexedHeap<Timed> h;
  h.set(4, {3.0, 4});
  h.set(0, {1.0, 0});
  h.set(7, {2.0, 7});
  EXPECT_EQ(h.size(), 3u);
  EXPECT_EQ(drain(h),
            (std::vector<std::pair<std::uint32_t, double>>{{0, 1.0}, {7, 2.0}, {4, 3.0}}));
  EXPECT_FALSE(h.contains(0));
}

TEST(IndexedHeap, SettingAnIdAgainReplacesItsEntry) {
  // id 1 moves from 1.0 (first) to 5.0 (last), id 2 from 4.0 to 0.5 (first): one entry each.
  IndexedHeap<Timed> h;
  h.set(1, {1.0, 1});
  h.set(2, {4.0, 2});
  h.set(3, {2.0, 3});
  h.set(1, {5.0, 1});
  h.set(2, {0.5, 2});
  EXPECT_EQ(h.size(), 3u);
  EXPECT_EQ(h.at(1).time_s, 5.0);
  EXPECT_EQ(drain(h),
            (std::vector<std::pair<std::uint32_t, double>>{{2, 0.5}, {3, 2.0}, {1, 5.0}}));
}

TEST(IndexedHeap, EqualTimesPopByTheEntriesTieBreak) {
  IndexedHeap<Timed> h;
  h.set(9, {1.0, 2});
  h.set(8, {1.0, 1});
  h.set(7, {1.0, 3});
  EXPECT_EQ(drain(h),
            (std::vector<std::pair<std::uint32_t, double>>{{8, 1.0}, {9, 1.0}, {7, 1.0}}));
}

TEST(IndexedHeap, AgreesWithAnOrderedMapUnderRandomSetsAndPops) {
  // The reference keeps each id's latest entry in a map ordered by (time, id); the heap must pop
  // exactly what the map's first element is, after any mix of inserts, moves and pops.
  std::mt19937 rng(7);
  IndexedHeap<Timed> h;
  std::map<std::pair<double, std::uint32_t>, std::uint32_t> ref;  // (time, tag) -> id
  std::map<std::uint32_t, double> time_of;
  for (int step = 0; step < 20000; ++step) {
    if (rng() % 3 != 0 || ref.empty()) {
      const std::uint32_t id = rng() % 64;
      const double t = static_cast<double>(rng() % 1000);
      if (const auto it = time_of.find(id); it != time_of.end()) ref.erase({it->second, id});
      time_of[id] = t;
      ref[{t, id}] = id;
      h.set(id, {t, id});
    } else {
      ASSERT_FALSE(h.empty());
      const auto first = ref.begin();
      ASSERT_EQ(h.top_id(), first->second) << "step " << step;
      ASSERT_EQ(h.top().time_s, first->first.first) << "step " << step;
      time_of.erase(first->second);
      ref.erase(first);
      h.pop();
    }
    ASSERT_EQ(h.size(), ref.size());
  }
}

}  // namespace
}  // namespace linksim
