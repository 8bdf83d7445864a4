// "base", "replace_models" and "replace_cpus": a machine that is another machine file (a cloud
// instance of a DGX, a what-if with other GPUs), read through the loader's file reader so a test
// can serve it.
#include <fmt/format.h>

#include "sim/topo/host_cpu_swap.hpp"
#include "sim/topo/loader_sections.hpp"
#include "sim/topo/model_swap.hpp"

namespace linksim::topo {
namespace fs = std::filesystem;

namespace {
// A chain longer than this is taken for a cycle (a.json -> b.json -> a.json).
constexpr int kMaxBaseDepth = 8;
}  // namespace

Topology parse_base(const JsonView& root, const JsonView& base_view, const std::string& file,
                    const BaseChain& chain) {
  if (chain.depth >= kMaxBaseDepth) base_view.fail("\"base\" chain is too deep (a cycle?)");
  if (root.has("nodes") || root.has("links") || root.has("gpu_models")) {
    base_view.fail(
        "a file with \"base\" takes its nodes, links and gpu_models from the base; "
        "remove them here or drop \"base\"");
  }
  const std::string base_name = base_view.as_string();
  const fs::path base_path = fs::path(file).parent_path() / base_name;
  const std::optional<std::string> text = chain.read(base_path);
  if (!text) {
    base_view.fail(fmt::format("base machine \"{}\" not found (looked for {})", base_name,
                               base_path.string()));
  }
  const Json document = parse_json_text(*text, base_path.string());
  // A cluster loads its host; a base that is a cluster could name this file as that host.
  if (document.is_object() && document.contains("cluster")) {
    base_view.fail(
        fmt::format("base \"{}\" is a cluster; a machine's base must be one machine", base_name));
  }
  Topology topo =
      parse_machine(document, base_path.string(), BaseChain{chain.read, chain.depth + 1});
  topo.base = fs::path(base_name).stem().string();
  if (auto replace = root.get("replace_models")) {
    replace_gpu_models(*replace, topo);
    check_nvlink_budget(topo, root);
  }
  if (auto replace = root.get("replace_cpus")) replace_host_cpus(*replace, topo);
  return topo;
}

}  // namespace linksim::topo
