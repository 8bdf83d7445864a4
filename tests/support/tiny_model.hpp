#pragma once
// The small transformer the job tests simulate, and a scenario of it written into a TempDir.
// 4 layers, hidden 1024, 8 heads and 8 KV heads of 128 (K and V: 2,048 elements a token), FFN
// 4096, vocabulary 1000, bf16.

#include <string>

#include "tests/support/temp_files.hpp"

namespace linksim::testing {

inline constexpr const char* kTinyModelJson =
    R"({"title": "tiny", "sources": ["test"], "layers": 4, "hidden": 1024, "heads": 8,
        "kv_heads": 8, "ffn_hidden": 4096, "vocab": 1000, "dtype": "bf16",
        "published_parameters": 1})";

// Writes tiny.json and s.json into `dir`: the tiny model on `machine` with the JSON texts `job`
// and `plan`, and `extra` (", \"overrides\": {...}") after the plan. Returns s.json's path.
inline std::string write_tiny_scenario(const TempDir& dir, const std::string& machine,
                                       const std::string& job, const std::string& plan,
                                       const std::string& extra = "") {
  dir.write("tiny.json", kTinyModelJson);
  return dir.write("s.json", R"({"title": "t", "topologies": [")" + machine + R"("], "model": ")" +
                                 dir.path() + R"(/tiny.json", "job": )" + job + R"(, "plan": )" +
                                 plan + extra + "}");
}

}  // namespace linksim::testing
