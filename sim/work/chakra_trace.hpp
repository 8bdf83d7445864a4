#pragma once
// Chakra execution traces (MLCommons Chakra ET, schema sim/work/chakra/et_def.proto) as a
// workload: one file per rank, PREFIX.0.et ... PREFIX.{n-1}.et as ASTRA-sim names them, each a
// stream of varint-length-prefixed protobuf messages, a GlobalMetadata first and then Nodes
// (Chakra's src/third_party/utils/protolib.py, encodeMessage/decodeMessage). Rank r runs on the
// machine's r-th GPU. The nodes become workload.hpp's work and go through placement
// (task_graph_placement.hpp's place_tasks), so a trace costs what the same task graph costs:
// - COMP_NODE: compute for duration_micros (or its "runtime" attribute, microseconds), else
//   num_ops FLOPs at the GPU's dense peak (bf16, else fp16, else fp32); is_cpu_op: a delay.
// - COMM_COLL_NODE: one collective over its group (pg_name: the ranks whose traces use that
//   name; none: every rank). The k-th call of a group on each rank is one call; comm_size is its
//   size as nccl-tests counts it.
// - COMM_SEND_NODE / COMM_RECV_NODE: the k-th send from s to d with tag t and the k-th receive
//   at d from s with tag t are one point-to-point transfer, which starts when the send's deps
//   are done; the receive node ends when the transfer and its own deps have.
// - MEM_LOAD_NODE / MEM_STORE_NODE: a copy of tensor_size bytes from / to the CPU socket that
//   the GPU reaches in the fewest hops.
// - METADATA_NODE: a barrier. data_deps and ctrl_deps both order nodes within a rank.
// Bad input throws InputError naming the file, the node id and the attribute (or the byte
// offset), for: bytes that are not a Chakra trace, a truncated message, unknown fields, node
// types or attributes, a rank outside the set, calls that do not match across ranks, deps on
// missing nodes, cycles.

#include <string>
#include <utility>
#include <vector>

#include "sim/topo/topology.hpp"
#include "sim/work/task_graph.hpp"
#include "sim/work/workload.hpp"

namespace linksim::work {

// Whether `path` names a Chakra trace set rather than a JSON task graph: a folder holding a
// file NAME.0.et, a file whose name ends ".et", or a prefix P for which P.0.et exists.
bool is_chakra_trace(const std::string& path);

// The files of the set `path` names, in rank order: P.0.et ... while they exist (P: `path`, or
// `path` less ".N.et" when it names one rank's file); for a folder, the one NAME such that the
// folder holds NAME.0.et. Throws InputError when there is none, or a folder holds several sets.
std::vector<std::string> chakra_trace_files(const std::string& path);

// One rank's file: its name (for errors) and its bytes.
struct ChakraFile {
  std::string name;
  std::string bytes;
};

// The trace whose rank r is files[r], on `topology`'s GPUs.
TaskGraph read_chakra_trace(const std::vector<ChakraFile>& files, const topo::Topology& topology,
                            LinkRates rates = LinkRates::line);

// chakra_trace_files(path), read and converted.
TaskGraph load_chakra_trace(const std::string& path, const topo::Topology& topology,
                            LinkRates rates = LinkRates::line);

}  // namespace linksim::work
