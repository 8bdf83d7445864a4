#pragma once
// Loading and validating topology files (format: docs/topology-format.md). Every problem in a
// file is an InputError naming the file, the JSON pointer and what was expected; a Topology
// that comes back is complete and consistent (all GPUs reach each other, figures in range).

#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "sim/core/json_view.hpp"
#include "sim/topo/shipped_topologies.hpp"
#include "sim/topo/topology.hpp"

namespace linksim::topo {

// Reads the text of a machine file that a "base" names: nullopt when no such file exists (the
// loader then reports the missing base at its JSON path), an InputError when it exists but
// cannot be read. The seam lets a test serve base files from memory.
using MachineFileReader = std::function<std::optional<std::string>(const std::filesystem::path&)>;
// The default reader: the file on disk.
std::optional<std::string> read_machine_file_from_disk(const std::filesystem::path& path);

// `path` is a file, or the name of a shipped machine ("dgx-a100") found in topologies/.
Topology load_topology(const std::string& path);
// Parses an already-read document; `file` is used for messages and to resolve "base", whose
// files (and their bases) are read by `read_base`.
Topology parse_topology(const Json& document, const std::string& file,
                        const MachineFileReader& read_base = read_machine_file_from_disk);

// The fields every machine and cluster file names itself by: file and name (its stem), title,
// description, sources and notes, replacing what `topo` had (a base's or a host's).
void read_identity(const JsonView& root, const std::string& file, Topology& topo);

// Accepted bounds; outside them a figure is "absurd" and rejected.
inline constexpr double kMinBandwidth_Bps = 1e6;   // 1 MB/s
inline constexpr double kMaxBandwidth_Bps = 1e13;  // 10 TB/s per direction
inline constexpr double kMaxLatency_s = 1e-3;      // 1 ms per hop

}  // namespace linksim::topo
