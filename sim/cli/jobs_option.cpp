#include "sim/cli/jobs_option.hpp"

#include "sim/cli/whole_number_range.hpp"

namespace linksim::cli {

void add_jobs_option(CLI::App* cmd, int& threads, const std::string& cases) {
  cmd->add_option("-j,--jobs", threads,
                  cases + " simulated at once (default: one per core); the output is the same")
      ->check(whole_number_range(1, 1024));
}

}  // namespace linksim::cli
