#include "calibrate/cuda_module.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>

namespace linksim::calibrate {
namespace {

constexpr const char* kModuleName = "liblinksim_cuda_probe.so";
constexpr const char* kEntryPoint = "linksim_make_cuda_probe";
using Entry = Probe* (*)(std::string*);

std::string module_path() {
  if (const char* env = std::getenv("LINKSIM_CUDA_PROBE")) return env;
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return kModuleName;
  return (exe.parent_path() / kModuleName).string();
}

}  // namespace

std::unique_ptr<Probe> load_cuda_probe(std::string& why_not) {
  const std::string path = module_path();
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    why_not = "built without CUDA (no " + path +
              "): rebuild with nvcc on PATH to measure a node, or fit existing logs with "
              "`linksim fit`";
    return nullptr;
  }
  // Kept loaded for the life of the process: the probe's code lives in it.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* err = dlerror();
    why_not = "cannot load the CUDA probe module " + path +
              " (is the CUDA runtime installed?): " + (err ? err : "unknown error");
    return nullptr;
  }
  auto entry = reinterpret_cast<Entry>(dlsym(handle, kEntryPoint));
  if (entry == nullptr) {
    why_not = path + " has no entry point " + kEntryPoint;
    return nullptr;
  }
  std::unique_ptr<Probe> probe(entry(&why_not));
  return probe;
}

}  // namespace linksim::calibrate
