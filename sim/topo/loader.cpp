// The machine loader's orchestration: which sections a document has, in which order they are
// read, and where "base" files come from. Each section's parser is in a parse_*.cpp beside it
// (loader_sections.hpp).
#include "sim/topo/loader.hpp"

#include <system_error>

#include "sim/core/error.hpp"
#include "sim/core/memory_bound.hpp"
#include "sim/core/schema_check.hpp"
#include "sim/core/text_file.hpp"
#include "sim/topo/cluster_loader.hpp"
#include "sim/topo/loader_sections.hpp"

namespace linksim::topo {
namespace fs = std::filesystem;

namespace {

// A machine described by its own "gpu_models", "nodes" and "links" (no "base").
void parse_own_machine(const JsonView& root, Topology& topo) {
  // Both sections are required: a missing one is refused before a large count is expanded.
  const JsonView nodes = root.at("nodes");
  const JsonView links = root.at("links");
  check_expansion_totals(root);
  const GpuModels models = parse_gpu_models(root.get("gpu_models"));
  parse_nodes(nodes, models, topo);
  parse_links(links, topo);
  check_connected(topo, root);
  check_nvlink_budget(topo, root);
}

}  // namespace

Topology parse_machine(const Json& document, const std::string& file, const BaseChain& chain) {
  // A file within the node and link counts may still need more memory than --max-memory
  // allows (a million GPUs): the bound's error then names the file being read.
  const MemoryPhase phase("reading the machine file " + file);
  JsonView root(document, file);
  if (root.has("cluster")) return parse_cluster(root, file);
  root.expect_only({"$schema", "title", "description", "sources", "notes", "base", "instance",
                    "replace_models", "replace_cpus", "gpu_models", "nodes", "links",
                    "collective_calibration", "host_launch", "host_power"});
  Topology topo;
  if (auto base = root.get("base")) {
    topo = parse_base(root, *base, file, chain);
  } else {
    for (const char* key : {"replace_models", "replace_cpus"}) {
      if (root.has(key)) {
        root.at(key).fail("replaces parts of a base machine; expected \"base\" beside it");
      }
    }
    parse_own_machine(root, topo);
  }
  read_identity(root, file, topo);
  if (auto hv = root.get("host_launch")) parse_host_launch(*hv, topo.host_launch);
  if (auto cv = root.get("collective_calibration")) {
    parse_collective_calibration(*cv, topo.collective);
  }
  if (auto iv = root.get("instance")) topo.instance = parse_instance(*iv);
  // A base's host power stands unless this file states its own.
  if (auto pv = root.get("host_power")) topo.host_power = parse_host_power(*pv);
  // After the loader's own checks, which say more; the schema catches what they let through.
  enforce_schema(document, file, topology_schema_path());
  return topo;
}

std::optional<std::string> read_machine_file_from_disk(const fs::path& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return std::nullopt;
  return read_text_file(path.string());
}

Topology parse_topology(const Json& document, const std::string& file,
                        const MachineFileReader& read_base) {
  return parse_machine(document, file, BaseChain{read_base, 0});
}

Topology load_topology(const std::string& path) {
  const std::string resolved = resolve_topology_path(path);
  const MachineFileReader from_disk = read_machine_file_from_disk;
  return parse_machine(read_json_file(resolved), resolved, BaseChain{from_disk, 0});
}

}  // namespace linksim::topo
