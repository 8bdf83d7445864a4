#pragma once
// The machines and clusters shipped in topologies/, and how a name finds one of them.

#include <string>
#include <vector>

namespace linksim::topo {

// Directory of the shipped machines, and their files (sorted, schema.json excluded).
std::string shipped_topology_dir();
std::vector<std::string> shipped_topology_files();
// The shipped clusters, topologies/clusters/*.json (sorted, schema.json excluded).
std::vector<std::string> shipped_cluster_files();
// A path that exists as given, else topologies/<name>.json or topologies/clusters/<name>.json
// from the shipped set; the input unchanged when none exists (loading then reports it).
std::string resolve_topology_path(const std::string& name_or_path);

}  // namespace linksim::topo
