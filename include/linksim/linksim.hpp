#pragma once
// linksim's C++ package: every public header. Link the CMake target linksim::linksim
// (find_package(linksim)); docs/cpp-api.md.

#include <linksim/error.hpp>       // InputError, what every call throws for bad input
#include <linksim/machine.hpp>     // load_machine, shipped_machines
#include <linksim/nccl_tests.hpp>  // simulate_nccl_tests
#include <linksim/scenario.hpp>    // run_scenario
#include <linksim/sweep.hpp>       // run_sweep
#include <linksim/version.hpp>     // version
