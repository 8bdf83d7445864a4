// A program built against the installed C++ package (tests/package/package_consumer_test.sh):
// it prints what the CLI would, so that the test can hold the two byte for byte.
//
//   linksim_consumer nccl-tests MACHINE BINARY ARGS...  nccl-tests' printout
//   linksim_consumer run SCENARIO MACHINE               the JSON report (no ranges); exit 1
//                                                       unless each step adds up
//   linksim_consumer machine NAME_OR_PATH               the GPU and link counts, and an error's
//                                                       file, location and message
// Only <linksim/...> headers: what the package promises is all a user gets.
#include <cstdio>
#include <cstdlib>
#include <linksim/linksim.hpp>
#include <string>
#include <vector>

namespace {

int nccl_tests(int argc, char** argv) {
  linksim::NcclTestsOptions options;
  options.machine = argv[2];
  options.binary = argv[3];
  options.arguments.assign(argv + 4, argv + argc);
  const linksim::NcclTestsResult r = linksim::simulate_nccl_tests(options);
  std::fputs(r.printout.c_str(), stdout);
  return 0;
}

int run(char** argv) {
  linksim::RunOptions options;
  options.scenario = argv[2];
  options.machines = {argv[3]};
  options.ranges = false;
  const linksim::RunResult r = linksim::run_scenario(options);
  std::fputs(r.report_json.c_str(), stdout);
  for (const auto& m : r.machines) {
    if (!m.step) continue;
    const linksim::StepBreakdown& s = *m.step;
    const double sum = s.compute_s + s.exposed_comm_s + s.idle_s;
    if (sum > s.step_s * (1 + 1e-12) || sum < s.step_s * (1 - 1e-12)) {
      std::fprintf(stderr, "%s: compute + exposed + idle = %.17g s, step %.17g s\n",
                   m.machine.c_str(), sum, s.step_s);
      return 1;
    }
  }
  return 0;
}

int machine(char** argv) {
  try {
    const linksim::Machine m = linksim::load_machine({.name_or_path = argv[2]});
    int gpus = 0;
    for (const auto& d : m.devices)
      gpus += d.kind == "gpu";
    std::printf("%s: %d GPUs, %zu links\n", m.name.c_str(), gpus, m.links.size());
  } catch (const linksim::InputError& e) {
    std::printf("file: %s\nlocation: %s\nmessage: %s\n", e.file().c_str(), e.location().c_str(),
                e.message().c_str());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // The package's data unless the caller chose other data.
  setenv("LINKSIM_DATA", LINKSIM_INSTALLED_DATA, /*overwrite=*/0);
  const std::string mode = argc > 1 ? argv[1] : "";
  try {
    if (mode == "nccl-tests" && argc >= 4) return nccl_tests(argc, argv);
    if (mode == "run" && argc == 4) return run(argv);
    if (mode == "machine" && argc == 3) return machine(argv);
  } catch (const linksim::InputError& e) {
    std::fprintf(stderr, "linksim_consumer: %s\n", e.what());
    return 2;
  }
  std::fprintf(stderr, "usage: linksim_consumer nccl-tests|run|machine ... (see consumer.cc)\n");
  return 64;
}
