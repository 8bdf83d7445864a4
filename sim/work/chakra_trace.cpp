// Chakra execution traces as a workload (chakra_trace.hpp).
#include "sim/work/chakra_trace.hpp"

#include <fmt/format.h>
#include <google/protobuf/io/coded_stream.h>
#include <sim/work/chakra/et_def.pb.h>  // generated (CMakeLists.txt)

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <tuple>

#include "sim/core/error.hpp"
#include "sim/core/text_file.hpp"
#include "sim/topo/routing.hpp"
#include "sim/work/task_graph_placement.hpp"

namespace linksim::work {
namespace {

namespace fs = std::filesystem;
namespace pb = ChakraProtoMsg;

// A message longer than this is not from a trace (a node is a few hundred bytes): the length
// prefix of something that is not a Chakra file.
constexpr std::uint32_t kMaxMessageBytes = 64u << 20;

[[noreturn]] void fail(const std::string& file, const std::string& where,
                       const std::string& message) {
  throw InputError(file, where, message);
}

std::string node_where(std::uint64_t id, const std::string& attribute) {
  return attribute.empty() ? fmt::format("node {}", id)
                           : fmt::format("node {}, attribute {}", id, attribute);
}

// One rank's file, parsed: its nodes in file order.
struct RankTrace {
  std::string file;
  std::vector<pb::Node> nodes;
};

// Reads the length-prefixed messages of one file (protolib.py's decodeMessage: a varint length,
// then that many bytes).
RankTrace parse_rank(const ChakraFile& f) {
  RankTrace out{f.name, {}};
  if (f.bytes.size() > kMaxInputFileBytes)
    fail(f.name, "", "larger than 1 GiB; expected a Chakra trace of at most 1 GiB");
  const auto* data = reinterpret_cast<const std::uint8_t*>(f.bytes.data());
  google::protobuf::io::CodedInputStream in(data, static_cast<int>(f.bytes.size()));
  bool have_metadata = false;
  while (true) {
    const int at = in.CurrentPosition();
    if (in.ExpectAtEnd()) break;
    std::uint32_t length = 0;
    if (!in.ReadVarint32(&length))
      fail(f.name, fmt::format("byte {}", at),
           have_metadata ? "truncated: the file ends inside a message's length prefix"
                         : "not a Chakra execution trace: no message length at its start");
    const std::size_t left = f.bytes.size() - static_cast<std::size_t>(in.CurrentPosition());
    if (length > kMaxMessageBytes || length > left) {
      if (!have_metadata)
        fail(f.name, fmt::format("byte {}", at),
             fmt::format("not a Chakra execution trace: its first message claims {} bytes and "
                         "{} follow",
                         length, left));
      fail(f.name, fmt::format("byte {}", at),
           fmt::format("truncated: a message of {} bytes, {} left in the file", length, left));
    }
    const auto limit = in.PushLimit(static_cast<int>(length));
    if (!have_metadata) {
      pb::GlobalMetadata meta;
      if (!meta.ParseFromCodedStream(&in) || !in.ConsumedEntireMessage() ||
          !meta.GetReflection()->GetUnknownFields(meta).empty())
        fail(f.name, fmt::format("byte {}", at),
             "not a Chakra execution trace: the first message is not a GlobalMetadata");
      have_metadata = true;
    } else {
      pb::Node node;
      if (!node.ParseFromCodedStream(&in) || !in.ConsumedEntireMessage())
        fail(f.name, fmt::format("byte {}", at),
             fmt::format("message {} is not a Chakra Node (bad protobuf)", out.nodes.size() + 1));
      const auto& unknown = node.GetReflection()->GetUnknownFields(node);
      if (!unknown.empty())
        fail(f.name, node_where(node.id(), ""),
             fmt::format("unknown field number {} (not in Chakra's et_def.proto)",
                         unknown.field(0).number()));
      out.nodes.push_back(std::move(node));
    }
    in.PopLimit(limit);
  }
  if (!have_metadata) fail(f.name, "byte 0", "empty: a Chakra trace starts with a GlobalMetadata");
  return out;
}

// The attributes linksim reads or knowingly ignores. Anything else is an error, so that a trace
// whose meaning depends on an attribute linksim does not model is not silently mis-simulated.
const std::set<std::string, std::less<>>& known_attributes() {
  static const std::set<std::string, std::less<>> names = {
      // read
      "comm_type", "comm_size", "comm_src", "comm_dst", "comm_tag", "num_ops", "runtime",
      "tensor_size", "is_cpu_op", "pg_name",
      // ignored: provenance and scheduling hints that do not change the time on linksim's model
      "comm_priority", "involved_dim", "op_type", "rf_id", "fw_parent", "seq_id", "scope", "tid",
      "fw_tid", "op_schema", "ph"};
  return names;
}

// A node's attributes by name, checked against known_attributes().
class Attributes {
 public:
  Attributes(const RankTrace& rank, const pb::Node& node) : file_(rank.file), id_(node.id()) {
    for (const pb::AttributeProto& a : node.attr()) {
      if (!known_attributes().contains(a.name()))
        fail(file_, node_where(id_, a.name()), "unknown attribute");
      by_name_[a.name()] = &a;
    }
  }
  bool has(const std::string& name) const { return by_name_.contains(name); }
  // An integer attribute (any of the schema's integer kinds, non-negative).
  std::optional<std::uint64_t> uint(const std::string& name) const {
    auto it = by_name_.find(name);
    if (it == by_name_.end()) return std::nullopt;
    const pb::AttributeProto& a = *it->second;
    std::int64_t v = 0;
    switch (a.value_case()) {
      case pb::AttributeProto::kInt32Val:
        v = a.int32_val();
        break;
      case pb::AttributeProto::kInt64Val:
        v = a.int64_val();
        break;
      case pb::AttributeProto::kUint32Val:
        v = a.uint32_val();
        break;
      case pb::AttributeProto::kUint64Val:
        return a.uint64_val();
      case pb::AttributeProto::kSint32Val:
        v = a.sint32_val();
        break;
      case pb::AttributeProto::kSint64Val:
        v = a.sint64_val();
        break;
      case pb::AttributeProto::kFixed32Val:
        v = a.fixed32_val();
        break;
      case pb::AttributeProto::kFixed64Val:
        return a.fixed64_val();
      case pb::AttributeProto::kSfixed32Val:
        v = a.sfixed32_val();
        break;
      case pb::AttributeProto::kSfixed64Val:
        v = a.sfixed64_val();
        break;
      default:
        fail(file_, node_where(id_, name), "expected an integer value");
    }
    if (v < 0) fail(file_, node_where(id_, name), fmt::format("expected >= 0, got {}", v));
    return static_cast<std::uint64_t>(v);
  }
  // A number (integer or floating point), finite and non-negative.
  std::optional<double> number(const std::string& name) const {
    auto it = by_name_.find(name);
    if (it == by_name_.end()) return std::nullopt;
    const pb::AttributeProto& a = *it->second;
    double v = 0;
    if (a.value_case() == pb::AttributeProto::kDoubleVal) {
      v = a.double_val();
    } else if (a.value_case() == pb::AttributeProto::kFloatVal) {
      v = a.float_val();
    } else {
      v = static_cast<double>(*uint(name));
    }
    if (!std::isfinite(v) || v < 0)
      fail(file_, node_where(id_, name), fmt::format("expected a number >= 0, got {}", v));
    return v;
  }
  bool flag(const std::string& name) const {
    auto it = by_name_.find(name);
    if (it == by_name_.end()) return false;
    if (it->second->value_case() != pb::AttributeProto::kBoolVal)
      fail(file_, node_where(id_, name), "expected a bool value");
    return it->second->bool_val();
  }
  std::optional<std::string> text(const std::string& name) const {
    auto it = by_name_.find(name);
    if (it == by_name_.end()) return std::nullopt;
    if (it->second->value_case() != pb::AttributeProto::kStringVal)
      fail(file_, node_where(id_, name), "expected a string value");
    return it->second->string_val();
  }
  std::uint64_t required_uint(const std::string& name) const {
    auto v = uint(name);
    if (!v) fail(file_, node_where(id_, name), "missing (required for this node type)");
    return *v;
  }

 private:
  const std::string& file_;
  std::uint64_t id_;
  std::map<std::string, const pb::AttributeProto*, std::less<>> by_name_;
};

std::optional<coll::Op> collective_op(std::int64_t comm_type) {
  switch (comm_type) {
    case pb::ALL_REDUCE:
      return coll::Op::all_reduce;
    case pb::ALL_GATHER:
      return coll::Op::all_gather;
    case pb::REDUCE_SCATTER:
      return coll::Op::reduce_scatter;
    case pb::ALL_TO_ALL:
      return coll::Op::alltoall;
    case pb::BROADCAST:
      return coll::Op::broadcast;
    case pb::REDUCE:
      return coll::Op::reduce;
    default:
      return std::nullopt;
  }
}

// The GPU's dense peak (FLOP/s) that a num_ops-only compute node runs at.
double peak_flops(const topo::Topology& topology, topo::NodeId gpu) {
  const auto& model = topology.node(gpu).gpu;
  if (model) {
    for (const char* dtype : {"bf16", "fp16", "fp32"}) {
      auto it = model->peak_flops.find(dtype);
      if (it != model->peak_flops.end() && it->second > 0) return it->second;
    }
  }
  return 0;
}

// The CPU socket that `gpu` reaches in the fewest channels (host memory for MEM nodes).
std::optional<topo::NodeId> nearest_cpu(const topo::Topology& topology, const topo::Router& router,
                                        topo::NodeId gpu) {
  std::optional<topo::NodeId> best;
  std::size_t best_hops = 0;
  for (topo::NodeId cpu : topology.nodes_of(topo::NodeKind::cpu)) {
    if (topology.host_of(cpu) != topology.host_of(gpu)) continue;
    auto r = router.route(cpu, gpu);
    if (!r || r->paths.empty()) continue;
    const std::size_t hops = r->paths.front().channels.size();
    if (!best || hops < best_hops) {
      best = cpu;
      best_hops = hops;
    }
  }
  return best;
}

// Where a raw task came from, for errors that placement finds.
struct Origin {
  std::size_t rank = 0;
  std::uint64_t node = 0;
};

class Converter {
 public:
  Converter(const std::vector<ChakraFile>& files, const topo::Topology& topology)
      : files_(files), topology_(topology), gpus_(topology.nodes_of(topo::NodeKind::gpu)) {}

  TaskGraph run(LinkRates rates) {
    if (files_.empty()) throw InputError("", "", "a Chakra trace set needs at least one file");
    if (files_.size() > gpus_.size())
      fail(files_.back().name, "",
           fmt::format("{} ranks, but the machine has {} GPUs (rank r runs on GPU r)",
                       files_.size(), gpus_.size()));
    for (const ChakraFile& f : files_)
      ranks_.push_back(parse_rank(f));
    // Groups named by pg_name: the ranks whose traces use each name.
    for (std::size_t r = 0; r < ranks_.size(); ++r) {
      for (const pb::Node& n : ranks_[r].nodes) {
        if (n.type() != pb::COMM_COLL_NODE) continue;
        Attributes a(ranks_[r], n);
        if (auto pg = a.text("pg_name")) group_ranks_[*pg].insert(r);
      }
    }
    for (std::size_t r = 0; r < ranks_.size(); ++r)
      add_rank(r);
    check_matched();
    const std::vector<std::size_t> order = detail::canonical_order(tasks_);
    if (order.size() != tasks_.size()) {
      // The first task not placed is on or after a cycle.
      std::vector<bool> placed(tasks_.size(), false);
      for (std::size_t i : order)
        placed[i] = true;
      for (std::size_t i = 0; i < tasks_.size(); ++i) {
        if (!placed[i])
          fail(files_[origin_[i].rank].name, node_where(origin_[i].node, "data_deps"),
               "the dependencies form a cycle (across ranks: through a collective or send)");
      }
    }
    return detail::place_tasks(
        tasks_, order, topology_, rates,
        [&](std::size_t i, const char* field, const std::string& message) {
          fail(files_[origin_[i].rank].name, node_where(origin_[i].node, ""),
               fmt::format("cannot run on the machine ({}): {}", field, message));
        });
  }

 private:
  using Rank = std::size_t;

  std::size_t new_task(std::string id, Origin origin) {
    tasks_.emplace_back();
    tasks_.back().id = std::move(id);
    origin_.push_back(origin);
    return tasks_.size() - 1;
  }

  Rank rank_attribute(const Attributes& a, std::size_t r, const pb::Node& n,
                      const std::string& name, Rank fallback) {
    auto v = a.uint(name);
    if (!v) return fallback;
    if (*v >= ranks_.size())
      fail(ranks_[r].file, node_where(n.id(), name),
           fmt::format("rank {} is outside the trace set (ranks 0-{})", *v, ranks_.size() - 1));
    return static_cast<Rank>(*v);
  }

  void add_rank(Rank r) {
    const RankTrace& rank = ranks_[r];
    const topo::NodeId gpu = gpus_[r];
    // Node id -> task, and each node's deps, resolved after every node of the rank is known.
    std::map<std::uint64_t, std::size_t> task_of;
    std::vector<std::pair<std::size_t, const pb::Node*>> pending;
    std::map<std::string, std::size_t> calls_in_group;
    std::map<std::tuple<Rank, Rank, std::uint64_t>, std::size_t> sends_seen, recvs_seen;
    for (const pb::Node& n : rank.nodes) {
      if (task_of.contains(n.id()))
        fail(rank.file, node_where(n.id(), "id"), "two nodes have this id");
      const Attributes a(rank, n);
      const std::string id = fmt::format("r{}.n{}", r, n.id());
      std::size_t t = 0;
      switch (n.type()) {
        case pb::COMP_NODE: {
          t = new_task(id, {r, n.id()});
          double seconds = 0;
          if (n.duration_micros() > 0) {
            seconds = static_cast<double>(n.duration_micros()) * 1e-6;
          } else if (auto us = a.number("runtime")) {
            seconds = *us * 1e-6;
          } else if (auto ops = a.number("num_ops")) {
            const double peak = peak_flops(topology_, gpu);
            if (peak <= 0)
              fail(rank.file, node_where(n.id(), "num_ops"),
                   "the GPU has no published peak FLOP/s to run num_ops at");
            seconds = *ops / peak;
          } else {
            fail(rank.file, node_where(n.id(), "duration_micros"),
                 "a COMP_NODE needs duration_micros, a runtime attribute or num_ops");
          }
          tasks_[t].kind = a.flag("is_cpu_op") ? WorkKind::delay : WorkKind::compute;
          tasks_[t].amount = seconds;
          tasks_[t].gpu = gpu;
          break;
        }
        case pb::COMM_COLL_NODE: {
          const std::uint64_t type = a.required_uint("comm_type");
          const auto op = collective_op(static_cast<std::int64_t>(type));
          if (!op)
            fail(rank.file, node_where(n.id(), "comm_type"),
                 fmt::format("collective {} ({}) is not modelled (linksim runs ALL_REDUCE, "
                             "ALL_GATHER, REDUCE_SCATTER, ALL_TO_ALL, BROADCAST, REDUCE)",
                             type, pb::CollectiveCommType_Name(static_cast<int>(type))));
          const double bytes = static_cast<double>(a.required_uint("comm_size"));
          const std::string group = a.text("pg_name").value_or("");
          const std::size_t k = calls_in_group[group]++;
          const auto key = std::make_pair(group, k);
          auto it = calls_.find(key);
          if (it == calls_.end()) {
            t = new_task(fmt::format("{}.coll{}", group.empty() ? "world" : group, k), {r, n.id()});
            auto c = std::make_unique<CollectiveWork>();
            c->op = *op;
            if (group.empty()) {
              c->gpus.assign(gpus_.begin(), gpus_.begin() + static_cast<long>(ranks_.size()));
            } else {
              for (Rank g : group_ranks_.at(group))
                c->gpus.push_back(gpus_[g]);
            }
            tasks_[t].collective = std::move(c);
            tasks_[t].amount = bytes;
            calls_[key] = {t, 1};
          } else {
            t = it->second.task;
            ++it->second.ranks;
            const detail::RawTask& first = tasks_[t];
            if (first.collective->op != *op || first.amount != bytes)
              fail(rank.file, node_where(n.id(), first.amount != bytes ? "comm_size" : "comm_type"),
                   fmt::format("call {} of group '{}' differs from rank {}'s (node {}): {} {} B "
                               "there",
                               k, group.empty() ? "all ranks" : group, origin_[t].rank,
                               origin_[t].node, to_string(first.collective->op), first.amount));
          }
          break;
        }
        case pb::COMM_SEND_NODE:
        case pb::COMM_RECV_NODE: {
          const bool send = n.type() == pb::COMM_SEND_NODE;
          const Rank src = rank_attribute(a, r, n, "comm_src", r);
          const Rank dst = rank_attribute(a, r, n, "comm_dst", r);
          if ((send ? src : dst) != r)
            fail(rank.file, node_where(n.id(), send ? "comm_src" : "comm_dst"),
                 fmt::format("names rank {}, but this is rank {}'s trace", send ? src : dst, r));
          if (!a.has(send ? "comm_dst" : "comm_src"))
            fail(rank.file, node_where(n.id(), send ? "comm_dst" : "comm_src"),
                 "missing (required for this node type)");
          if (src == dst)
            fail(rank.file, node_where(n.id(), send ? "comm_dst" : "comm_src"),
                 "a send from a rank to itself");
          const std::uint64_t tag = a.uint("comm_tag").value_or(0);
          const double bytes = static_cast<double>(a.required_uint("comm_size"));
          auto& seen = send ? sends_seen : recvs_seen;
          const std::size_t k = seen[{src, dst, tag}]++;
          const auto key = std::make_tuple(src, dst, tag, k);
          auto& half = p2p_[key];
          (send ? half.send : half.recv) = Origin{r, n.id()};
          if (half.task) {
            if (tasks_[*half.task].amount != bytes)
              fail(rank.file, node_where(n.id(), "comm_size"),
                   fmt::format("{} B, but the matching {} (rank {}, node {}) has {} B", bytes,
                               send ? "receive" : "send", origin_[*half.task].rank,
                               origin_[*half.task].node, tasks_[*half.task].amount));
          } else {
            half.task =
                new_task(fmt::format("p2p.r{}-r{}.tag{}.{}", src, dst, tag, k), {r, n.id()});
            detail::RawTask& transfer = tasks_[*half.task];
            transfer.kind = detail::transfer_work(topology_, gpus_[src], gpus_[dst]);
            transfer.src = gpus_[src];
            transfer.dst = gpus_[dst];
            transfer.amount = bytes;
          }
          // The transfer starts when the send's deps are done, and the send node ends with it.
          // The receive node ends when the transfer and the receive's own deps have (a barrier):
          // a receive posted after a send on its own rank must not hold that send back, or a
          // ring whose every rank sends, then receives, would wait on itself.
          if (send) {
            t = *half.task;
          } else {
            t = new_task(id, {r, n.id()});
            tasks_[t].kind = WorkKind::barrier;
            half.recv_task = t;
          }
          break;
        }
        case pb::MEM_LOAD_NODE:
        case pb::MEM_STORE_NODE: {
          t = new_task(id, {r, n.id()});
          if (!router_) router_ = std::make_unique<topo::Router>(topology_);
          const auto cpu = nearest_cpu(topology_, *router_, gpu);
          if (!cpu)
            fail(rank.file, node_where(n.id(), "type"),
                 "memory traffic is not modelled on this machine: no CPU socket reaches the GPU");
          const bool load = n.type() == pb::MEM_LOAD_NODE;
          tasks_[t].kind = WorkKind::copy;
          tasks_[t].src = load ? *cpu : gpu;
          tasks_[t].dst = load ? gpu : *cpu;
          tasks_[t].amount = static_cast<double>(a.required_uint("tensor_size"));
          break;
        }
        case pb::METADATA_NODE:
          t = new_task(id, {r, n.id()});
          tasks_[t].kind = WorkKind::barrier;
          break;
        default:
          fail(rank.file, node_where(n.id(), "type"),
               fmt::format("node type {} is not modelled (linksim runs COMP_NODE, "
                           "COMM_COLL_NODE, COMM_SEND_NODE, COMM_RECV_NODE, MEM_LOAD_NODE, "
                           "MEM_STORE_NODE, METADATA_NODE)",
                           static_cast<int>(n.type())));
      }
      task_of[n.id()] = t;
      pending.emplace_back(t, &n);
    }
    for (const auto& [t, n] : pending) {
      for (const auto* deps : {&n->data_deps(), &n->ctrl_deps()}) {
        for (std::uint64_t d : *deps) {
          auto it = task_of.find(d);
          if (it == task_of.end())
            fail(rank.file,
                 node_where(n->id(), deps == &n->data_deps() ? "data_deps" : "ctrl_deps"),
                 fmt::format("depends on node {}, which rank {}'s trace lacks", d, r));
          if (it->second == t) continue;  // a node of the same merged call: no edge
          auto& list = tasks_[t].deps;
          if (std::find(list.begin(), list.end(), it->second) == list.end())
            list.push_back(it->second);
        }
      }
    }
  }

  void check_matched() {
    for (const auto& [key, call] : calls_) {
      const std::size_t want =
          key.first.empty() ? ranks_.size() : group_ranks_.at(key.first).size();
      if (call.ranks != want) {
        const Origin& o = origin_[call.task];
        fail(files_[o.rank].name, node_where(o.node, "pg_name"),
             fmt::format("call {} of group '{}' is on {} of its {} ranks", key.second,
                         key.first.empty() ? "all ranks" : key.first, call.ranks, want));
      }
    }
    for (const auto& [key, half] : p2p_) {
      if (half.send && half.recv) {
        tasks_[*half.recv_task].deps.push_back(*half.task);
        continue;
      }
      const Origin& o = half.send ? *half.send : *half.recv;
      fail(files_[o.rank].name, node_where(o.node, half.send ? "comm_dst" : "comm_src"),
           fmt::format("no matching {} on rank {} (tag {})", half.send ? "receive" : "send",
                       half.send ? std::get<1>(key) : std::get<0>(key), std::get<2>(key)));
    }
  }

  struct Call {
    std::size_t task = 0;
    std::size_t ranks = 0;
  };
  struct PointToPoint {
    std::optional<std::size_t> task;       // the transfer
    std::optional<std::size_t> recv_task;  // the receive node's barrier
    std::optional<Origin> send, recv;
  };

  const std::vector<ChakraFile>& files_;
  const topo::Topology& topology_;
  const std::vector<topo::NodeId> gpus_;
  std::unique_ptr<topo::Router> router_;
  std::vector<RankTrace> ranks_;
  std::map<std::string, std::set<Rank>> group_ranks_;
  std::map<std::pair<std::string, std::size_t>, Call> calls_;
  std::map<std::tuple<Rank, Rank, std::uint64_t, std::size_t>, PointToPoint> p2p_;
  std::vector<detail::RawTask> tasks_;
  std::vector<Origin> origin_;
};

// "P.N.et" -> P (N digits), else nullopt.
std::optional<std::string> prefix_of_rank_file(const std::string& path) {
  if (!path.ends_with(".et")) return std::nullopt;
  const std::string stem = path.substr(0, path.size() - 3);
  const auto dot = stem.rfind('.');
  if (dot == std::string::npos || dot + 1 == stem.size()) return std::nullopt;
  for (std::size_t i = dot + 1; i < stem.size(); ++i) {
    if (stem[i] < '0' || stem[i] > '9') return std::nullopt;
  }
  return stem.substr(0, dot);
}

}  // namespace

bool is_chakra_trace(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    // Only a folder holding a trace set: any other folder stays the task-graph reader's error.
    for (const auto& entry : fs::directory_iterator(path, ec)) {
      if (entry.path().filename().string().ends_with(".0.et")) return true;
    }
    return false;
  }
  return path.ends_with(".et") || fs::exists(path + ".0.et", ec);
}

std::vector<std::string> chakra_trace_files(const std::string& path) {
  std::error_code ec;
  std::string prefix = path;
  if (fs::is_directory(path, ec)) {
    std::set<std::string> prefixes;
    for (const auto& entry : fs::directory_iterator(path, ec)) {
      const std::string name = entry.path().filename().string();
      if (name.size() > 5 && name.ends_with(".0.et"))
        prefixes.insert((entry.path().parent_path() / name.substr(0, name.size() - 5)).string());
    }
    if (prefixes.empty())
      throw InputError(path, "", "a folder of Chakra traces must hold NAME.0.et, NAME.1.et, ...");
    if (prefixes.size() > 1)
      throw InputError(path, "",
                       fmt::format("holds {} trace sets ({}, ...): name one by its prefix",
                                   prefixes.size(), *prefixes.begin()));
    prefix = *prefixes.begin();
  } else if (auto p = prefix_of_rank_file(path)) {
    prefix = *p;
  }
  std::vector<std::string> files;
  while (fs::is_regular_file(fmt::format("{}.{}.et", prefix, files.size()), ec))
    files.push_back(fmt::format("{}.{}.et", prefix, files.size()));
  if (files.empty()) throw InputError(path, "", fmt::format("no Chakra trace {}.0.et", prefix));
  return files;
}

TaskGraph read_chakra_trace(const std::vector<ChakraFile>& files, const topo::Topology& topology,
                            LinkRates rates) {
  return Converter(files, topology).run(rates);
}

TaskGraph load_chakra_trace(const std::string& path, const topo::Topology& topology,
                            LinkRates rates) {
  std::vector<ChakraFile> files;
  // read_text_file holds every input to its 1 GiB bound; the bytes are taken as they are.
  for (const std::string& name : chakra_trace_files(path))
    files.push_back({name, read_text_file(name)});
  return read_chakra_trace(files, topology, rates);
}

}  // namespace linksim::work
