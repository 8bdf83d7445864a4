#pragma once
// How a report says which price it used: the date it was the list price, or that the user gave
// it (--price-per-hour).

#include <string>

#include "sim/topo/topology.hpp"

namespace linksim::report {

inline std::string price_when(const std::string& as_of) {
  return as_of == topo::Instance::kGivenPrice ? "price given" : "price as of " + as_of;
}

}  // namespace linksim::report
