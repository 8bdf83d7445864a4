// Reading NCCL's graph dump (NCCL_GRAPH_DUMP_FILE) with tinyxml2. What NCCL's own loader
// (search.cc ncclTopoGetGraphFromXmlSub) requires is required here too: every attribute of
// <graph> but latencyinter, and dev on every child of <channel>.
#include <fmt/format.h>
#include <tinyxml2.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <regex>

#include "sim/coll/nccl_graph.hpp"
#include "sim/core/error.hpp"

namespace linksim::coll {
namespace {

using tinyxml2::XMLElement;

class Reader {
 public:
  explicit Reader(std::string source) : source_(std::move(source)) {}

  NcclGraphDump read(const std::string& text) const;

 private:
  [[noreturn]] void fail(const XMLElement& e, const std::string& what,
                         const std::string& expected) const {
    throw InputError(source_, fmt::format("line {}", e.GetLineNum()),
                     fmt::format("{}: {}", what, expected));
  }
  const char* required(const XMLElement& e, const char* name, const std::string& what) const {
    const char* v = e.Attribute(name);
    if (!v) fail(e, what, fmt::format("expected a {} attribute", name));
    return v;
  }
  int int_attr(const XMLElement& e, const char* name, const std::string& what) const;
  double float_attr(const XMLElement& e, const char* name, const std::string& what,
                    bool optional) const;
  std::int64_t dev_attr(const XMLElement& e, const std::string& what) const;
  NcclPathType path_attr(const XMLElement& e, const char* name, const std::string& what) const;
  NcclGraph read_graph(const XMLElement& e, int index) const;
  NcclGraphChannel read_channel(const XMLElement& e, const std::string& what) const;

  std::string source_;
};

int Reader::int_attr(const XMLElement& e, const char* name, const std::string& what) const {
  const char* v = required(e, name, what);
  static const std::regex number(R"(-?\d{1,9})");
  if (!std::regex_match(v, number)) {
    fail(e, what, fmt::format("{}=\"{}\": expected an integer", name, v));
  }
  return std::stoi(v);
}

double Reader::float_attr(const XMLElement& e, const char* name, const std::string& what,
                          bool optional) const {
  const char* v = e.Attribute(name);
  if (!v && optional) return 0;
  if (!v) v = required(e, name, what);
  static const std::regex number(R"([0-9]{1,12}(\.[0-9]{0,12})?([eE][-+]?[0-9]{1,3})?)");
  if (!std::regex_match(v, number)) {
    fail(e, what, fmt::format("{}=\"{}\": expected a number of at least 0", name, v));
  }
  // Far above any link (GB/s) or latency (us), and within a float, as NCCL holds them.
  constexpr double kLargest = 1e6;
  const double x = std::strtod(v, nullptr);
  if (!std::isfinite(x) || x > kLargest) {
    fail(e, what, fmt::format("{}=\"{}\": expected a number from 0 to {:g}", name, v, kLargest));
  }
  return x;
}

std::int64_t Reader::dev_attr(const XMLElement& e, const std::string& what) const {
  const char* v = required(e, "dev", what);
  // NCCL writes "%#lx" and reads with strtol(.., 16): "0", "0x1", "1" and "0X1" all parse.
  static const std::regex hex(R"((0[xX])?[0-9a-fA-F]{1,15})");
  if (!std::regex_match(v, hex)) {
    fail(e, what, fmt::format("dev=\"{}\": expected a hexadecimal device number", v));
  }
  return std::strtoll(v, nullptr, 16);
}

NcclPathType Reader::path_attr(const XMLElement& e, const char* name,
                               const std::string& what) const {
  const char* v = required(e, name, what);
  const auto t = nccl_path_type(v);
  if (!t) {
    fail(e, what,
         fmt::format("{}=\"{}\": expected a path type (LOC, NVL, NVB, C2C, PIX, PXB, P2C, PXN, "
                     "PHB, SYS, NET, DIS)",
                     name, v));
  }
  return *t;
}

NcclGraphChannel Reader::read_channel(const XMLElement& e, const std::string& what) const {
  NcclGraphChannel c;
  c.line = e.GetLineNum();
  for (const XMLElement* sub = e.FirstChildElement(); sub; sub = sub->NextSiblingElement()) {
    const std::string name = sub->Name();
    const std::string sub_what = fmt::format("<{}> in {}", name, what);
    if (name == "net") {
      c.nets.push_back(dev_attr(*sub, sub_what));
    } else if (name == "gpu") {
      NcclGraphGpu gpu;
      gpu.dev = dev_attr(*sub, sub_what);
      if (sub->Attribute("rank")) {
        gpu.rank = int_attr(*sub, "rank", sub_what);
        if (gpu.rank < 0) fail(*sub, sub_what, "expected a rank of at least 0");
      }
      c.gpus.push_back(gpu);
    } else {
      fail(*sub, sub_what, "expected <gpu> or <net>");
    }
  }
  if (c.nets.size() > 2) fail(e, what, "expected at most two <net> (entry and exit)");
  return c;
}

NcclGraph Reader::read_graph(const XMLElement& e, int index) const {
  NcclGraph g;
  g.line = e.GetLineNum();
  std::string what = fmt::format("<graph> {}", index);
  g.id = int_attr(e, "id", what);
  what = fmt::format("<graph> id {}", g.id);
  const int pattern = int_attr(e, "pattern", what);
  if (pattern < 1 || pattern > 6) {
    fail(e, what, fmt::format("pattern=\"{}\": expected 1 to 6 (NCCL_TOPO_PATTERN_*)", pattern));
  }
  g.pattern = static_cast<NcclGraphPattern>(pattern);
  const int crossnic = int_attr(e, "crossnic", what);
  if (crossnic < 0 || crossnic > 2) fail(e, what, "crossnic: expected 0, 1 or 2");
  g.crossnic = crossnic == 1;
  g.nchannels = int_attr(e, "nchannels", what);
  if (g.nchannels < 0 || g.nchannels > 64) fail(e, what, "nchannels: expected 0 to 64");
  g.speed_intra_Bps = float_attr(e, "speedintra", what, false) * 1e9;
  g.speed_inter_Bps = float_attr(e, "speedinter", what, false) * 1e9;
  g.latency_inter_s = float_attr(e, "latencyinter", what, true) * 1e-6;
  g.type_intra = path_attr(e, "typeintra", what);
  g.type_inter = path_attr(e, "typeinter", what);
  const int same = int_attr(e, "samechannels", what);
  if (same != 0 && same != 1) fail(e, what, "samechannels: expected 0 or 1");
  g.same_channels = same == 1;
  int c = 0;
  for (const XMLElement* sub = e.FirstChildElement(); sub; sub = sub->NextSiblingElement()) {
    const std::string channel_what = fmt::format("<channel> {} of graph {}", c, g.id);
    if (std::string(sub->Name()) != "channel") {
      fail(*sub, fmt::format("<{}> in {}", sub->Name(), what), "expected <channel>");
    }
    if (c == 64) fail(*sub, channel_what, "expected at most 64 channels");
    g.channels.push_back(read_channel(*sub, channel_what));
    ++c;
  }
  if (c != g.nchannels) {
    fail(e, what,
         fmt::format("nchannels=\"{}\" but {} <channel> element{}", g.nchannels, c,
                     c == 1 ? "" : "s"));
  }
  return g;
}

NcclGraphDump Reader::read(const std::string& text) const {
  tinyxml2::XMLDocument xml;
  if (xml.Parse(text.data(), text.size()) != tinyxml2::XML_SUCCESS) {
    throw InputError(source_, fmt::format("line {}", xml.ErrorLineNum()),
                     fmt::format("expected well-formed XML ({})", xml.ErrorStr()));
  }
  const XMLElement* root = xml.RootElement();
  if (!root || std::string(root->Name()) != "graphs") {
    throw InputError(source_, root ? fmt::format("line {}", root->GetLineNum()) : "",
                     "expected a <graphs> root (NCCL_GRAPH_DUMP_FILE)");
  }
  NcclGraphDump dump;
  dump.version = int_attr(*root, "version", "<graphs>");
  if (dump.version != 1) fail(*root, "<graphs>", "version: expected 1");
  int index = 0;
  for (const XMLElement* e = root->FirstChildElement(); e; e = e->NextSiblingElement()) {
    if (std::string(e->Name()) != "graph") {
      fail(*e, fmt::format("<{}> in <graphs>", e->Name()), "expected <graph>");
    }
    if (index == 16) fail(*e, "<graphs>", "expected at most 16 graphs");
    dump.graphs.push_back(read_graph(*e, index++));
  }
  return dump;
}

}  // namespace

NcclGraphDump parse_nccl_graph_dump(const std::string& text, const std::string& source) {
  return Reader(source).read(text);
}

}  // namespace linksim::coll
