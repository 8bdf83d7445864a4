#pragma once
// Independent cases (machines of a comparison, plans of a search) run on several threads with
// the result a single thread gives: each case writes only its own slot of the caller's output,
// so gathering in input order, never in completion order, is the caller's indexing; and the
// error thrown is the one a sequential run would have thrown (the first failing case in input
// order).
//
//   std::vector<Row> rows(machines.size());
//   run_cases(machines.size(), threads, [&](std::size_t i) { rows[i] = simulate(machines[i]); });

#include <cstddef>
#include <functional>

namespace linksim {

// Threads for `requested`: itself when positive, else one per core (at least 1).
int threads_for(int requested);

struct CaseProgress {
  // Called when case `index` starts, with the number of cases finished so far.
  std::function<void(std::size_t index, std::size_t finished)> started;
  // Called when a case ends (done or failed), with the number of cases finished so far.
  std::function<void(std::size_t finished)> finished;
};

// Calls run_case(i) for i in 0..count-1 on threads_for(threads) threads (never more than
// `count`). Cases start in input order. The progress callbacks are called one at a time (under
// one lock), so they may update a display that is not thread-safe. When a case throws, no case
// after it in input order starts; those before it still finish, and once all have, the
// exception of the first failing case in input order is rethrown. With one thread, everything
// runs on the calling thread in order, exactly as a plain loop would.
void run_cases(std::size_t count, int threads, const std::function<void(std::size_t)>& run_case,
               const CaseProgress& progress = {});

}  // namespace linksim
