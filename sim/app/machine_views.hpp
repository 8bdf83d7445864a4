#pragma once
// The texts `linksim topo show|check|list` print: a machine as nvidia-smi shows it, what linksim
// makes of it, and the shipped machines one line each.

#include <string>

#include "sim/topo/topology.hpp"

namespace linksim::app {

// table: the text a person reads; json and csv: the same figures for programs
// (report/machine_data.hpp, topo/smi_matrix_format.hpp).
enum class ViewFormat { table, json, csv };

// `nvidia-smi topo -m` of the machine, byte for byte in nvidia-smi's layout (table), or its cells
// as JSON or CSV. A cluster shows one host, as nvidia-smi would on it. With `summary` (table
// only), linksim's summary of the host follows the legend, and a cluster's fabric after it.
std::string smi_view(const topo::Topology& machine, ViewFormat format, bool summary);

// What the machine is and whether it holds together (topo::explain_machine), with a cluster's
// fabric.
std::string machine_check(const topo::Topology& machine, ViewFormat format = ViewFormat::table);

// The shipped machines: a header and one line each (name, GPUs, price, title).
std::string shipped_machines_list(ViewFormat format = ViewFormat::table);

}  // namespace linksim::app
