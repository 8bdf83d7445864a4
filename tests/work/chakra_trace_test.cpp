// Chakra execution traces (sim/work/chakra_trace.hpp): ASTRA-sim's public all-reduce example
// against linksim's own collective, hand-computed chains, and every bad input's error. Traces
// other than ASTRA-sim's are written here with the classes protoc generates from
// sim/work/chakra/et_def.proto, as Chakra's protolib.py encodeMessage writes them (a varint
// length, then the message), so each test shows the whole trace it runs.
#include "sim/work/chakra_trace.hpp"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <gtest/gtest.h>
#include <sim/work/chakra/et_def.pb.h>

#include <string>
#include <vector>

#include "sim/coll/collective_sim.hpp"
#include "sim/coll/communicator.hpp"
#include "sim/core/error.hpp"
#include "sim/topo/loader.hpp"
#include "tests/support/task_graph_test_box.hpp"
#include "tests/support/temp_files.hpp"
#include "tests/support/thrown_message.hpp"

namespace linksim::work {
namespace {

namespace pb = ChakraProtoMsg;

// One rank's file: a GlobalMetadata, then `nodes`, each behind its varint length.
std::string et_bytes(const std::vector<pb::Node>& nodes) {
  std::string out;
  {
    google::protobuf::io::StringOutputStream raw(&out);
    google::protobuf::io::CodedOutputStream coded(&raw);
    const auto put = [&](const google::protobuf::MessageLite& m) {
      coded.WriteVarint32(static_cast<std::uint32_t>(m.ByteSizeLong()));
      m.SerializeToCodedStream(&coded);
    };
    pb::GlobalMetadata meta;
    meta.set_version("0.0.4");
    put(meta);
    for (const pb::Node& n : nodes)
      put(n);
  }
  return out;
}

pb::Node node(std::uint64_t id, pb::NodeType type, std::vector<std::uint64_t> data_deps = {}) {
  pb::Node n;
  n.set_id(id);
  n.set_name("n" + std::to_string(id));
  n.set_type(type);
  for (std::uint64_t d : data_deps)
    n.add_data_deps(d);
  return n;
}

pb::Node compute_us(std::uint64_t id, std::uint64_t micros, std::vector<std::uint64_t> deps = {}) {
  pb::Node n = node(id, pb::COMP_NODE, std::move(deps));
  n.set_duration_micros(micros);
  return n;
}

void set_uint(pb::Node& n, const std::string& name, std::uint64_t value) {
  pb::AttributeProto* a = n.add_attr();
  a->set_name(name);
  a->set_uint64_val(value);
}

pb::Node all_reduce(std::uint64_t id, std::uint64_t bytes, std::vector<std::uint64_t> deps = {}) {
  pb::Node n = node(id, pb::COMM_COLL_NODE, std::move(deps));
  set_uint(n, "comm_type", pb::ALL_REDUCE);
  set_uint(n, "comm_size", bytes);
  return n;
}

pb::Node p2p(std::uint64_t id, pb::NodeType type, std::uint64_t src, std::uint64_t dst,
             std::uint64_t bytes, std::vector<std::uint64_t> deps = {}) {
  pb::Node n = node(id, type, std::move(deps));
  set_uint(n, "comm_src", src);
  set_uint(n, "comm_dst", dst);
  set_uint(n, "comm_tag", 7);
  set_uint(n, "comm_size", bytes);
  return n;
}

std::vector<ChakraFile> trace(const std::vector<std::vector<pb::Node>>& ranks) {
  std::vector<ChakraFile> files;
  for (std::size_t r = 0; r < ranks.size(); ++r)
    files.push_back({"t." + std::to_string(r) + ".et", et_bytes(ranks[r])});
  return files;
}

std::string error_of(const std::vector<ChakraFile>& files) {
  const topo::Topology t = testing::task_graph_test_box();
  return testing::thrown_message<InputError>([&] { read_chakra_trace(files, t); });
}

std::string fixture(const std::string& name) {
  return testing::source_dir() + "/tests/data/chakra/" + name;
}

// ASTRA-sim's examples/workload/microbenchmarks/all_reduce/8npus_1MB: one COMM_COLL_NODE per
// rank, ALL_REDUCE of comm_size 1048576 B. On a DGX H100 it takes exactly what linksim's own
// all-reduce of 1 MiB over the 8 GPUs takes (sim/coll's simulate_collective, the planner's
// choice), since placement runs the same call; with payload rates, as collectives see links.
TEST(ChakraTrace, AstraSimAllReduceOn8RanksIsLinksimsOwnAllReduce) {
  const topo::Topology t = topo::load_topology("dgx-h100");
  const std::string prefix = fixture("all_reduce_8npus_1MB/all_reduce");
  const TaskGraph g = load_chakra_trace(prefix, t, LinkRates::payload);
  ASSERT_EQ(g.comm_ops.size(), 1u);
  EXPECT_EQ(g.comm_ops[0].gpus, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(g.task_names.back(), "world.coll0");
  const coll::Communicator comm(t, t.nodes_of(topo::NodeKind::gpu));
  coll::Request r;
  r.op = coll::Op::all_reduce;
  r.size_bytes = 1048576;
  const coll::Outcome alone = coll::simulate_collective(comm, r);
  const double makespan_s = g.simulation.run().makespan_s;
  EXPECT_NEAR(makespan_s, alone.time_s, 1e-12 * alone.time_s);
  // The folder and one rank's file name the same set.
  EXPECT_EQ(load_chakra_trace(fixture("all_reduce_8npus_1MB"), t, LinkRates::payload)
                .simulation.run()
                .makespan_s,
            makespan_s);
  EXPECT_EQ(chakra_trace_files(prefix + ".3.et").size(), 8u);
  EXPECT_TRUE(is_chakra_trace(prefix));
  EXPECT_FALSE(is_chakra_trace(fixture("nothing-here.json")));
}

// ASTRA-sim's examples/system/custom_collectives/custom_ring_allreduce_8npus_1MB: a ring
// all-reduce written as sends, receives and 7 us compute steps, 35 nodes per rank. Every rank
// sends to the next, then receives from the one before: it runs (a send waits for its own deps
// only, not for the matching receive's), one engine task per node: 8 x 35 = 280, and no
// collective call.
TEST(ChakraTrace, AstraSimCustomRingOfSendsRuns) {
  const topo::Topology t = topo::load_topology("dgx-h100");
  const TaskGraph g = load_chakra_trace(fixture("custom_ring_allreduce_8npus_1MB"), t);
  EXPECT_EQ(g.simulation.task_count(), 280u);
  EXPECT_TRUE(g.comm_ops.empty());
  EXPECT_GT(g.simulation.run().makespan_s, 0);
}

// Rank 0: 1 ms compute, the all-reduce, 2 ms compute; rank 1: the all-reduce, 0.5 ms compute.
// The all-reduce starts when rank 0's 1 ms ends and runs as alone (nothing else is running), so
// the makespan is 1 ms + T(all-reduce of 1 MB on gpu0, gpu1) + 2 ms.
TEST(ChakraTrace, ComputeCollectiveComputeAddsUp) {
  const topo::Topology t = testing::task_graph_test_box();
  const TaskGraph g = read_chakra_trace(
      trace({{compute_us(1, 1000), all_reduce(2, 1000000, {1}), compute_us(3, 2000, {2})},
             {all_reduce(2, 1000000), compute_us(3, 500, {2})}}),
      t, LinkRates::payload);
  const coll::Communicator comm(t, {*t.find("gpu0"), *t.find("gpu1")});
  coll::Request r;
  r.op = coll::Op::all_reduce;
  r.size_bytes = 1e6;
  const double collective_s = coll::simulate_collective(comm, r).time_s;
  const engine::Timeline tl = g.simulation.run();
  EXPECT_NEAR(tl.makespan_s, 1e-3 + collective_s + 2e-3, 1e-12);
}

// The seed's example as a trace: 100 ms of backward on rank 0, then 10 GB sent to rank 1 over
// PCIe 4.0 x16 at its 32 GB/s line rate: 0.1 + 10e9 / 32e9 = 0.1 + 0.3125 = 0.4125 s, as the
// same JSON task graph (tests/work/task_graph_test.cpp, SeedOverPcie).
TEST(ChakraTrace, SendAndReceiveAreOneTransfer) {
  const topo::Topology t = testing::task_graph_test_box();
  const TaskGraph g = read_chakra_trace(
      trace({{compute_us(1, 100000), p2p(2, pb::COMM_SEND_NODE, 0, 1, 10000000000, {1})},
             {p2p(5, pb::COMM_RECV_NODE, 0, 1, 10000000000)}}),
      t);
  EXPECT_DOUBLE_EQ(g.simulation.run().makespan_s, 0.4125);
}

// num_ops at the GPU's dense bf16 peak: 2e12 FLOPs / 1e15 FLOP/s = 2 ms; then a MEM_STORE of
// 32e9 B to cpu0 over PCIe at 32 GB/s = 1 s (ctrl_deps order it): 1.002 s.
TEST(ChakraTrace, FlopsAtThePeakAndMemoryTraffic) {
  topo::Topology t = testing::task_graph_test_box();
  topo::GpuModel model;
  model.peak_flops["bf16"] = 1e15;
  t.set_gpu_model(*t.find("gpu0"), model);
  pb::Node comp = node(1, pb::COMP_NODE);
  set_uint(comp, "num_ops", 2000000000000);
  pb::Node store = node(2, pb::MEM_STORE_NODE);
  store.add_ctrl_deps(1);
  set_uint(store, "tensor_size", 32000000000);
  const TaskGraph g = read_chakra_trace(trace({{comp, store}}), t);
  EXPECT_DOUBLE_EQ(g.simulation.run().makespan_s, 1.002);
}

TEST(ChakraTrace, RejectsBytesThatAreNotATrace) {
  // 'h' (0x68) read as a varint length: 104 bytes, of which 9 follow.
  EXPECT_EQ(error_of({{"t.0.et", "hello, ET\n"}}),
            "t.0.et: at byte 0: not a Chakra execution trace: its first message claims 104 "
            "bytes and 9 follow");
  // A length that fits, over bytes that are not a GlobalMetadata (field 15, varint: unknown).
  EXPECT_EQ(error_of({{"t.0.et", std::string("\x02\x78\x01", 3)}}),
            "t.0.et: at byte 0: not a Chakra execution trace: the first message is not a "
            "GlobalMetadata");
  EXPECT_EQ(error_of({{"t.0.et", ""}}),
            "t.0.et: at byte 0: empty: a Chakra trace starts with a GlobalMetadata");
}

TEST(ChakraTrace, RejectsATruncatedFile) {
  // ASTRA-sim's rank 1 file is 83 bytes: a 7-byte GlobalMetadata behind its 1-byte length, then
  // a 74-byte node behind its 1-byte length at byte 8; cut at 60 bytes, 51 of the 74 are left.
  const std::string whole = testing::read_file(fixture("all_reduce_8npus_1MB/all_reduce.1.et"));
  ASSERT_EQ(whole.size(), 83u);
  EXPECT_EQ(error_of({{"t.0.et", et_bytes({})}, {"t.1.et", whole.substr(0, 60)}}),
            "t.1.et: at byte 8: truncated: a message of 74 bytes, 51 left in the file");
}

TEST(ChakraTrace, RejectsARankOutsideTheSet) {
  EXPECT_EQ(error_of(trace({{p2p(4, pb::COMM_SEND_NODE, 0, 2, 8)}, {}})),
            "t.0.et: at node 4, attribute comm_dst: rank 2 is outside the trace set (ranks 0-1)");
  // Four ranks on a machine of three GPUs.
  EXPECT_EQ(error_of(trace({{}, {}, {}, {}})),
            "t.3.et: 4 ranks, but the machine has 3 GPUs (rank r runs on GPU r)");
}

TEST(ChakraTrace, RejectsUnknownNodeTypesAndAttributes) {
  pb::Node odd = node(9, pb::INVALID_NODE);
  EXPECT_EQ(error_of(trace({{odd}})),
            "t.0.et: at node 9, attribute type: node type 0 is not modelled (linksim runs "
            "COMP_NODE, COMM_COLL_NODE, COMM_SEND_NODE, COMM_RECV_NODE, MEM_LOAD_NODE, "
            "MEM_STORE_NODE, METADATA_NODE)");
  pb::Node attr = compute_us(3, 10);
  set_uint(attr, "sparkle", 1);
  EXPECT_EQ(error_of(trace({{attr}})), "t.0.et: at node 3, attribute sparkle: unknown attribute");
  pb::Node gather = all_reduce(5, 8);
  gather.mutable_attr(0)->set_uint64_val(pb::GATHER);
  EXPECT_EQ(error_of(trace({{gather}, {gather}})),
            "t.0.et: at node 5, attribute comm_type: collective 3 (GATHER) is not modelled "
            "(linksim runs ALL_REDUCE, ALL_GATHER, REDUCE_SCATTER, ALL_TO_ALL, BROADCAST, "
            "REDUCE)");
  pb::Node text_size = all_reduce(5, 8);
  text_size.mutable_attr(1)->set_string_val("8");
  EXPECT_EQ(error_of(trace({{text_size}, {text_size}})),
            "t.0.et: at node 5, attribute comm_size: expected an integer value");
  EXPECT_EQ(error_of(trace({{node(1, pb::COMP_NODE)}})),
            "t.0.et: at node 1, attribute duration_micros: a COMP_NODE needs duration_micros, a "
            "runtime attribute or num_ops");
}

TEST(ChakraTrace, RejectsCallsAndDepsThatDoNotMatch) {
  EXPECT_EQ(error_of(trace({{all_reduce(1, 8)}, {all_reduce(1, 16)}})),
            "t.1.et: at node 1, attribute comm_size: call 0 of group 'all ranks' differs from "
            "rank 0's (node 1): all_reduce 8 B there");
  EXPECT_EQ(error_of(trace({{all_reduce(1, 8)}, {}})),
            "t.0.et: at node 1, attribute pg_name: call 0 of group 'all ranks' is on 1 of its 2 "
            "ranks");
  EXPECT_EQ(error_of(trace({{p2p(1, pb::COMM_SEND_NODE, 0, 1, 8)}, {}})),
            "t.0.et: at node 1, attribute comm_dst: no matching receive on rank 1 (tag 7)");
  EXPECT_EQ(error_of(trace({{compute_us(1, 5, {4})}})),
            "t.0.et: at node 1, attribute data_deps: depends on node 4, which rank 0's trace "
            "lacks");
}

}  // namespace
}  // namespace linksim::work
