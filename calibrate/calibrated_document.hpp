#pragma once
// Writing link overrides into a copy of a topology document (docs/topology-format.md). Each
// overridden link gets "bandwidth" and/or "latency", "basis": "effective" and "source". A link
// entry that a "for" loop expands into several links keeps its loop when all its links get the
// same override (or none); otherwise it is written out as one entry per link, with the
// concrete node ids and host bridge. Provenance goes into the top-level "notes" and "sources"
// arrays (the format has no structured calibration field yet).

#include <string>
#include <vector>

#include "calibrate/link_overrides.hpp"
#include "sim/core/json_view.hpp"
#include "sim/topo/machine_writer.hpp"
#include "sim/topo/topology.hpp"

namespace linksim::calibrate {

struct CalibrationProvenance {
  std::vector<std::string> sources;  // one per log: "path (N bytes, fnv1a64 0123...)"
  std::vector<std::string> notes;    // fit quality, date, what was not fitted
};

// `document` is the file `topology` was parsed from (`file` names it in errors), without
// "base" (self_contained_document first).
Json apply_link_overrides(const Json& document, const std::string& file,
                          const topo::Topology& topology,
                          const std::vector<LinkOverride>& overrides,
                          const CalibrationProvenance& provenance);

// A machine file that stands alone: a document with "base" (docs/topology-format.md) becomes
// its base's nodes, links and gpu_models, followed up the chain, with "replace_models" applied
// to the GPU nodes and this file's own fields (title, description, instance, calibration, ...)
// on top; "sources" and "notes" are the base's followed by this file's. A document without
// "base" comes back unchanged. The base is read relative to `file` (InputError if missing).
// (topo::self_contained_machine_document.)
Json self_contained_document(const Json& document, const std::string& file);

// "13.2 GB/s", "3.69 us": 6 significant digits, so the written figure is the fitted one.
using topo::format_bandwidth_field;
using topo::format_latency_field;

// FNV-1a 64-bit hash of bytes, as 16 hex digits: identifies a log in provenance.
std::string fnv1a64_hex(const std::string& bytes);

}  // namespace linksim::calibrate
