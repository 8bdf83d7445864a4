#pragma once
// Writing machine files (docs/topology-format.md): the one place that spells the format's keys
// for writing, as loader.hpp is the one that reads them. Every writer (the `nvidia-smi topo -m`
// and NCCL XML importers, `linksim calibrate`, `linksim fit`) builds a MachineDocument, or edits
// a document it read, through these functions.
//
// Key order, fixed: "$schema", "title", "description", "sources", "notes", "gpu_models",
// "nodes", "links", "collective_calibration", "host_launch" (the loader's order); in a node
// "id", "kind", "count", "vendor", "model", "socket", "numa_node", "cores", "port_bandwidth",
// "cpuid", "pci", "nccl" (docs/topology-format.md's node fields, each part in the table's order);
// in a link "for", "a", "b", "kind", "generation", "lanes", "width", "host_bridge", then the
// figures "bandwidth", "latency", "bandwidth_range", "latency_range", "basis", "source".
// Empty strings, empty lists and unset optionals are left out, except "nodes" and "links" (the
// format requires them) and the collective block's "by_op" and "source".

#include <cstddef>
#include <string>
#include <vector>

#include "sim/core/json_view.hpp"
#include "sim/topo/machine_document.hpp"

namespace linksim::topo {

// The document of `machine`. Deterministic: the same value gives the same bytes.
Json write_machine_document(const MachineDocument& machine);

// The parts, as write_machine_document writes them.
Json gpu_model_entry_json(const GpuModelEntry& model);
Json node_entry_json(const NodeEntry& node);
Json link_entry_json(const LinkEntry& link);
Json collective_calibration_json(const CollectiveCalibration& calibration);
Json host_launch_json(const HostLaunch& launch);

// "13.2 GB/s", "3.69 us": 6 significant digits, so the written figure reads back as the value.
std::string format_bandwidth_field(double bandwidth_Bps);
std::string format_latency_field(double latency_s);

// Editing a document that was read rather than built: `linksim fit` writes into a copy of the
// user's own file and keeps its keys, their order and its "for" loops. What is set keeps its
// place when the key is there already and is appended otherwise.

// InputError at "base" when the document has one: an edit needs the nodes and links in hand
// (self_contained_machine_document first).
void expect_self_contained(const JsonView& document);
// The document's "links" entries as written (a "for" entry is one).
std::vector<JsonView> link_entries(const JsonView& document);
// Replaces the document's "links" entries.
void set_link_entries(Json& document, Json entries);
// The number of links an entry stands for: the product of its "for" variables' value counts
// ("lo..hi" inclusive, or an array), as the loader expands them. InputError on a bad range.
std::size_t link_entry_expansion(const JsonView& entry);
// `entry` written out as one concrete link: no "for", `a` and `b` as given, and its
// "host_bridge" (when it has one) as `host_bridge`.
Json concrete_link_entry(const Json& entry, const std::string& a, const std::string& b,
                         int host_bridge);
// Writes the figures that are set into a link entry, with "basis" and "source".
void write_link_figures(Json& entry, const LinkFigures& figures);
// Appends to the document's "sources" / "notes" (created when missing).
void append_sources(Json& document, const std::vector<std::string>& sources);
void append_notes(Json& document, const std::vector<std::string>& notes);
void set_collective_calibration(Json& document, const CollectiveCalibration& calibration);
void set_host_launch(Json& document, const HostLaunch& launch);

// A machine file that stands alone: a document with "base" becomes its base's nodes, links and
// gpu_models, followed up the chain, with "replace_models" applied to the GPU nodes and this
// file's own fields (title, description, instance, calibration, ...) on top; "sources" and
// "notes" are the base's followed by this file's, and a note says where the nodes came from. A
// document without "base" comes back unchanged. The base is read relative to `file`
// (InputError naming the "base" field if it is missing).
Json self_contained_machine_document(const Json& document, const std::string& file);

}  // namespace linksim::topo
