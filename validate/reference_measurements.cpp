#include "validate/reference_measurements.hpp"

#include <optional>

#include "sim/core/data_dir.hpp"
#include "sim/core/json_view.hpp"

namespace linksim::validate {

std::vector<NcclTestsRecord> load_nccl_tests_records(const std::string& path) {
  const Json doc = read_json_file(path);
  const JsonView root(doc, path);
  std::vector<NcclTestsRecord> out;
  for (const auto& rec : root.elements()) {
    const std::string test = rec.string_or("test", "");
    if (!rec.has("busbw_GBps") || rec.at("busbw_GBps").raw().is_null()) continue;
    std::optional<coll::Op> op;
    if (test == "nccl-tests") {
      op = coll::op_from_nccl_tests_binary(rec.at("op").as_string());
    } else if (test == kTorchAllReduceBench && rec.at("op").as_string() == "all_reduce") {
      op = coll::Op::all_reduce;  // the same busbw: algbw x 2 (n - 1) / n
    }
    if (!op) continue;
    NcclTestsRecord r;
    r.machine = rec.string_or("machine", "");
    r.op = *op;
    r.size_bytes = rec.at("size_bytes").as_number();
    r.busbw_Bps = rec.at("busbw_GBps").as_number() * 1e9;
    r.source_url = rec.string_or("source_url", "");
    out.push_back(std::move(r));
  }
  return out;
}

std::string default_measurements_path() {
  return data_dir() + "/tests/data/reference/measurements.json";
}

}  // namespace linksim::validate
