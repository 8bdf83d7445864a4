#pragma once
// Loading and validating topology files (format: docs/topology-format.md). Every problem in a
// file is an InputError naming the file, the JSON pointer and what was expected; a Topology
// that comes back is complete and consistent (all GPUs reach each other, figures in range).

#include <string>
#include <vector>

#include "sim/core/json_view.hpp"
#include "sim/topo/topology.hpp"

namespace linksim::topo {

// `path` is a file, or the name of a shipped machine ("dgx-a100") found in topologies/.
Topology load_topology(const std::string& path);
// Parses an already-read document; `file` is used for messages and to resolve "base".
Topology parse_topology(const Json& document, const std::string& file);

// The fields every machine and cluster file names itself by: file and name (its stem), title,
// description, sources and notes, replacing what `topo` had (a base's or a host's).
void read_identity(const JsonView& root, const std::string& file, Topology& topo);

// Directory of the shipped machines, and their files (sorted, schema.json excluded).
std::string shipped_topology_dir();
std::vector<std::string> shipped_topology_files();
// The shipped clusters, topologies/clusters/*.json (sorted, schema.json excluded).
std::vector<std::string> shipped_cluster_files();
// A path that exists as given, else topologies/<name>.json or topologies/clusters/<name>.json
// from the shipped set; the input unchanged when none exists (loading then reports it).
std::string resolve_topology_path(const std::string& name_or_path);

// Accepted bounds; outside them a figure is "absurd" and rejected.
inline constexpr double kMinBandwidth_Bps = 1e6;   // 1 MB/s
inline constexpr double kMaxBandwidth_Bps = 1e13;  // 10 TB/s per direction
inline constexpr double kMaxLatency_s = 1e-3;      // 1 ms per hop

}  // namespace linksim::topo
