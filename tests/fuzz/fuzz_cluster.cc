// Cluster files (sim/topo/cluster_loader.cpp): the host reference, the fabric, NVLink domains and
// the network plugin's environment. The input is written to a file of its own so that a host
// naming that file ("c.json", the recursion of issue 38) or another one is followed as a user's
// would be; inputs that are not clusters are left to the topology target.
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "sim/core/json_view.hpp"
#include "sim/topo/loader.hpp"
#include "tests/fuzz/fuzz_guard.hpp"

namespace {

// A folder of this process's own, made on the first input and removed at exit: c.json is
// rewritten for every input.
class ClusterFolder {
 public:
  ClusterFolder()
      : dir_(std::filesystem::temp_directory_path() /
             ("linksim-fuzz-cluster-" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(dir_);
  }
  ~ClusterFolder() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  ClusterFolder(const ClusterFolder&) = delete;
  ClusterFolder& operator=(const ClusterFolder&) = delete;
  std::string file() const { return (dir_ / "c.json").string(); }

 private:
  std::filesystem::path dir_;
};

const std::string& cluster_file() {
  static const ClusterFolder folder;
  static const std::string path = folder.file();
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace linksim;
  const std::string text = fuzz::as_text(data, size);
  fuzz::expect_clean([&] {
    const Json doc = parse_json_text(text, "fuzz.json");
    if (!doc.is_object() || !doc.contains("cluster")) return;
    { std::ofstream(cluster_file(), std::ios::binary | std::ios::trunc) << text; }
    topo::load_topology(cluster_file());
  });
  return 0;
}
