#include "sim/app/nccl_graphs.hpp"

#include <fmt/format.h>

#include <set>

#include "sim/coll/communicator.hpp"
#include "sim/coll/nccl_graph_linksim.hpp"
#include "sim/core/error.hpp"

namespace linksim::app {
namespace {

const topo::Topology& one_node(const topo::Topology& machine) {
  return machine.is_cluster() ? *machine.cluster->host : machine;
}

// Ring channels must hold each of the machine's GPUs once, as NCCL's ring graph does on the
// node that dumped it; other graphs (trees, NVLS heads) name only some GPUs, each at most once.
void check_gpus(const coll::NcclGraphDump& dump, std::size_t gpu_count, const std::string& source) {
  for (const auto& g : dump.graphs) {
    for (std::size_t c = 0; c < g.channels.size(); ++c) {
      const auto& ch = g.channels[c];
      const std::string where = fmt::format("line {}", ch.line);
      const std::string what = fmt::format("<channel> {} of graph {}", c, g.id);
      std::set<std::int64_t> seen;
      for (const auto& gpu : ch.gpus) {
        if (gpu.dev < 0 || static_cast<std::size_t>(gpu.dev) >= gpu_count) {
          throw InputError(source, where,
                           fmt::format("{}: gpu dev {:#x}: expected a GPU of the machine (0 to "
                                       "{:#x})",
                                       what, gpu.dev, gpu_count - 1));
        }
        if (!seen.insert(gpu.dev).second) {
          throw InputError(
              source, where,
              fmt::format("{}: gpu dev {:#x} twice: expected each GPU once", what, gpu.dev));
        }
      }
      if (g.pattern == coll::NcclGraphPattern::ring && seen.size() != gpu_count) {
        throw InputError(source, where,
                         fmt::format("{}: {} of the machine's {} GPUs: expected a ring "
                                     "through all of them",
                                     what, seen.size(), gpu_count));
      }
    }
  }
}

}  // namespace

coll::NcclGraphDump linksim_graph_dump(const topo::Topology& machine) {
  const topo::Topology& node = one_node(machine);
  const coll::Communicator comm(node, node.nodes_of(topo::NodeKind::gpu));
  return coll::linksim_nccl_graphs(comm);
}

coll::NcclGraphsComparison compare_graph_dump(const topo::Topology& machine,
                                              const std::string& dump_text,
                                              const std::string& dump_source) {
  const coll::NcclGraphDump nccl = coll::parse_nccl_graph_dump(dump_text, dump_source);
  check_gpus(nccl, one_node(machine).count(topo::NodeKind::gpu), dump_source);
  return coll::compare_nccl_graphs(nccl, linksim_graph_dump(machine));
}

}  // namespace linksim::app
