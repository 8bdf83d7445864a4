#pragma once
// Structural validation of a document against a JSON Schema (draft 7), with valijson. Every
// loader runs its own checks first (they give the most precise messages), then enforces its
// kind's schema, so that nothing the schema refuses is accepted. tests/core/
// schema_agreement_test.cpp keeps the two in step over a shared corpus.

#include <string>
#include <vector>

#include "sim/core/json_view.hpp"

namespace linksim {

// Problems as "JSON pointer: message"; empty when the document conforms.
std::vector<std::string> schema_violations(const Json& document, const Json& schema);

// Throws InputError when `document` (read from `file`) does not conform to the schema in the
// file `schema_path`. The error is at the JSON pointer of the most specific violation and says
// what the schema expected there, e.g. `expected one of: Ring, Tree, NVLS, P2P`. Each schema
// file is read and compiled once per process and kept; one that does not exist is skipped
// (a data folder without schemas still gets every loader's own checks).
void enforce_schema(const Json& document, const std::string& file, const std::string& schema_path);

// Where the shipped schemas live: <data_dir()>/<kind folder>/schema.json, and the task graph's
// under docs/.
std::string topology_schema_path();
std::string scenario_schema_path();
std::string model_schema_path();
std::string task_graph_schema_path();
// A sweep grid's (docs/sweep.schema.json; sim/app/sweep_grid.hpp).
std::string sweep_schema_path();

}  // namespace linksim
