#include "sim/topo/shipped_topologies.hpp"

#include <algorithm>
#include <filesystem>

#include "sim/core/data_dir.hpp"

namespace linksim::topo {
namespace fs = std::filesystem;

namespace {

// The regular *.json files in `dir` but its schema.json, sorted; none when `dir` is absent. A
// FIFO or device named *.json is no machine (opening a FIFO would block `topo list`).
std::vector<std::string> json_files_in(const fs::path& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const auto& p = entry.path();
    std::error_code type_ec;
    if (p.extension() == ".json" && p.filename() != "schema.json" &&
        entry.is_regular_file(type_ec)) {
      out.push_back(p.string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::string shipped_topology_dir() {
  return data_dir() + "/topologies";
}

std::vector<std::string> shipped_cluster_files() {
  return json_files_in(shipped_topology_dir() + "/clusters");
}

std::vector<std::string> shipped_topology_files() {
  return json_files_in(shipped_topology_dir());
}

std::string resolve_topology_path(const std::string& name_or_path) {
  std::error_code ec;
  if (fs::exists(name_or_path, ec)) return name_or_path;
  if (name_or_path.find('/') != std::string::npos) return name_or_path;
  // Machines first, then clusters (topologies/clusters/).
  for (const fs::path& dir :
       {fs::path(shipped_topology_dir()), fs::path(shipped_topology_dir()) / "clusters"}) {
    const fs::path shipped = dir / (name_or_path + ".json");
    if (fs::exists(shipped, ec)) return shipped.string();
  }
  return name_or_path;
}

}  // namespace linksim::topo
