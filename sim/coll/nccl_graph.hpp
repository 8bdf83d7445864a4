#pragma once
// NCCL's graph dump: the file NCCL writes with NCCL_GRAPH_DUMP_FILE (NVIDIA/nccl
// src/graph/search.cc ncclTopoGetXmlFromGraphs, written by xml.cc ncclTopoDumpXmlRec; init.cc
// dumps the ring, tree, collnet-direct, collnet-chain and NVLS graphs in that order, including
// the ones it did not search, which keep nchannels="0"):
//
//   <graphs version="1">
//     <graph id="0" pattern="4" crossnic="0" nchannels="2" speedintra="40" speedinter="40"
//            latencyinter="0" typeintra="NVL" typeinter="PIX" samechannels="1">
//       <channel>
//         <net dev="0"/>                  (only on several nodes: the NIC the channel enters by)
//         <gpu dev="0" rank="0"/> <gpu dev="0x1" rank="1"/> ...
//         <net dev="0"/>                  (the NIC it leaves by)
//       </channel>
//
// Graph ids: ring 0, tree 1, collnet chain 2, NVLS 3, collnet direct 4. Speeds are GB/s per
// channel (%g of a float); dev attributes are hexadecimal ("%#lx": "0", "0x1"), ranks decimal.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace linksim::coll {

// NCCL_TOPO_PATTERN_* (src/include/graph.h): the numbers are NCCL's.
enum class NcclGraphPattern {
  balanced_tree = 1,  // NIC traffic spread over two GPUs (parent and one child on the first)
  split_tree = 2,     // parent on the first GPU, children on the second
  tree = 3,           // all NIC traffic on one GPU
  ring = 4,
  nvls = 5,
  collnet_direct = 6,
};
std::string_view to_string(NcclGraphPattern p);

// NCCL's path types, best first (PATH_* in src/include/graph.h; names of topoPathTypeStr).
enum class NcclPathType { loc, nvl, nvb, c2c, pix, pxb, p2c, pxn, phb, sys, net, dis };
std::string_view to_string(NcclPathType t);  // "LOC", "NVL", ...
std::optional<NcclPathType> nccl_path_type(std::string_view name);

// The graph NCCL's init.cc gives each id, for messages ("ring", "tree", ...); "graph" otherwise.
std::string_view nccl_graph_name(int id);

struct NcclGraphGpu {
  std::int64_t dev = 0;  // NCCL_TOPO_ID(systemId, cuda dev): the CUDA device on one node
  int rank = -1;         // -1 when the dump names none (NCCL then looks the rank up by dev)
};

struct NcclGraphChannel {
  std::vector<std::int64_t> nets;  // the <net dev/> children, in order (none on one node)
  std::vector<NcclGraphGpu> gpus;  // ring or chain order
  int line = 0;                    // in the file read; 0 for one made here
};

struct NcclGraph {
  int id = 0;
  NcclGraphPattern pattern = NcclGraphPattern::ring;
  bool crossnic = false;
  int nchannels = 0;
  double speed_intra_Bps = 0;  // per channel; the file says GB/s
  double speed_inter_Bps = 0;
  double latency_inter_s = 0;  // the file says microseconds
  NcclPathType type_intra = NcclPathType::loc;
  NcclPathType type_inter = NcclPathType::loc;
  bool same_channels = false;
  std::vector<NcclGraphChannel> channels;  // nchannels of them
  int line = 0;
};

struct NcclGraphDump {
  int version = 1;  // NCCL_GRAPH_XML_VERSION
  std::vector<NcclGraph> graphs;
};

// Reads a graph dump. Throws InputError naming `source`, the line and the element ("line 7:
// <channel> 2 of graph 0"), and what was expected: malformed XML, a root other than <graphs>, a
// missing or malformed attribute, an unknown pattern or path type, a <channel> count other than
// nchannels, a child of <channel> other than <gpu> or <net>.
NcclGraphDump parse_nccl_graph_dump(const std::string& text, const std::string& source);

// The file NCCL would write for `dump`, byte for byte in ncclTopoDumpXmlRec's layout
// (two-space indent, attributes in NCCL's order, "%g" speeds). Deterministic.
std::string to_nccl_graph_xml(const NcclGraphDump& dump);

}  // namespace linksim::coll
