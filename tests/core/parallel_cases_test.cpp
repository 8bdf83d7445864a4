// Independent cases on threads (sim/core/parallel_cases.hpp): results in input order, the first
// failure in input order rethrown, no case started after a failure, progress one call at a time.
#include "sim/core/parallel_cases.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace linksim {
namespace {

TEST(ParallelCasesTest, ThreadsAreTheCountAskedElseOnePerCore) {
  EXPECT_EQ(threads_for(3), 3);
  EXPECT_GE(threads_for(0), 1);
}

TEST(ParallelCasesTest, EachCaseFillsItsOwnSlotWhateverTheThreads) {
  // Case i writes i * i into slot i: 0, 1, 4, ..., 99 with 1 thread or 3.
  for (int threads : {1, 3}) {
    std::vector<int> squares(10, -1);
    run_cases(squares.size(), threads, [&](std::size_t i) { squares[i] = int(i * i); });
    EXPECT_EQ(squares, (std::vector<int>{0, 1, 4, 9, 16, 25, 36, 49, 64, 81})) << threads;
  }
}

TEST(ParallelCasesTest, OneThreadStopsAtTheFirstFailureAsALoopWould) {
  // Cases 2 and 4 of 6 fail; one thread runs 0, 1, 2 and stops there, with case 2's error.
  std::vector<std::size_t> ran;
  try {
    run_cases(6, 1, [&](std::size_t i) {
      ran.push_back(i);
      if (i == 2 || i == 4) throw std::runtime_error("case " + std::to_string(i));
    });
    ADD_FAILURE() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "case 2");
  }
  EXPECT_EQ(ran, (std::vector<std::size_t>{0, 1, 2}));
}

TEST(ParallelCasesTest, TheFirstFailureInInputOrderWinsOverAnEarlierOneInTime) {
  // Three threads; case 2 waits until case 5 has failed, then fails itself. Case 5's error
  // comes first in time, but a sequential run would have stopped at case 2: its error wins.
  std::mutex mutex;
  std::condition_variable five_failed;
  bool five_done = false;
  try {
    run_cases(8, 3, [&](std::size_t i) {
      if (i == 5) {
        {
          const std::lock_guard<std::mutex> lock(mutex);
          five_done = true;
        }
        five_failed.notify_all();
        throw std::runtime_error("case 5");
      }
      if (i == 2) {
        std::unique_lock<std::mutex> lock(mutex);
        five_failed.wait_for(lock, std::chrono::seconds(30), [&] { return five_done; });
        throw std::runtime_error("case 2");
      }
    });
    ADD_FAILURE() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "case 2");
  }
  EXPECT_TRUE(five_done);
}

TEST(ParallelCasesTest, ProgressHearsEachStartAndEachEndOneCallAtATime) {
  // One thread: start 0 (0 finished), end (1), start 1 (1 finished), end (2), start 2, end (3).
  std::vector<std::string> heard;
  CaseProgress progress;
  progress.started = [&](std::size_t index, std::size_t finished) {
    heard.push_back("start " + std::to_string(index) + " after " + std::to_string(finished));
  };
  progress.finished = [&](std::size_t finished) {
    heard.push_back("end " + std::to_string(finished));
  };
  run_cases(
      3, 1, [](std::size_t) {}, progress);
  EXPECT_EQ(heard, (std::vector<std::string>{"start 0 after 0", "end 1", "start 1 after 1", "end 2",
                                             "start 2 after 2", "end 3"}));
  // Three threads over 20 cases: the calls do not overlap (the vector is not locked here, so
  // the sanitizers would see a race), every case starts once, and the last end is 20 of 20.
  heard.clear();
  std::vector<int> starts(20, 0);
  std::size_t last_finished = 0;
  progress.started = [&](std::size_t index, std::size_t) { ++starts[index]; };
  progress.finished = [&](std::size_t finished) {
    EXPECT_EQ(finished, last_finished + 1);
    last_finished = finished;
  };
  run_cases(
      20, 3, [](std::size_t) {}, progress);
  EXPECT_EQ(starts, std::vector<int>(20, 1));
  EXPECT_EQ(last_finished, 20u);
}

TEST(ParallelCasesTest, NoCasesRunsNothing) {
  bool called = false;
  run_cases(0, 3, [&](std::size_t) { called = true; });
  EXPECT_FALSE(called);
}

}  // namespace
}  // namespace linksim
