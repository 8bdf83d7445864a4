// The fields a machine or cluster file names itself by (read_identity in loader.hpp).
#include <filesystem>

#include "sim/topo/loader.hpp"

namespace linksim::topo {

void read_identity(const JsonView& root, const std::string& file, Topology& topo) {
  topo.file = file;
  topo.name = std::filesystem::path(file).stem().string();
  topo.title = root.at("title").as_string();
  topo.description = root.string_or("description", "");
  topo.sources.clear();
  if (auto s = root.get("sources")) {
    for (const auto& e : s->elements())
      topo.sources.push_back(e.as_string());
  }
  topo.notes.clear();
  if (auto n = root.get("notes")) {
    for (const auto& e : n->elements())
      topo.notes.push_back(e.as_string());
  }
}

}  // namespace linksim::topo
