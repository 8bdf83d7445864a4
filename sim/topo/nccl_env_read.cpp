#include "sim/topo/nccl_env_read.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdlib>

#include "sim/core/ascii_case.hpp"
#include "sim/core/error.hpp"

namespace linksim::topo {
namespace {

// topo.cc topoPathTypeStr, LOC to SYS: the names ncclGetLevel compares against (case matters:
// strcmp).
constexpr std::array<std::string_view, 10> kPathNames{"LOC", "NVL", "NVB", "C2C", "PIX",
                                                      "PXB", "P2C", "PXN", "PHB", "SYS"};

// paths.cc levelsOldToNew: the old integer levels 0..5, anything larger read as 5.
constexpr std::array<NcclPath, 6> kOldLevels{NcclPath::loc, NcclPath::pix, NcclPath::pxb,
                                             NcclPath::phb, NcclPath::sys, NcclPath::sys};

constexpr std::string_view kLevelsAccepted =
    "LOC, NVL, NVB, C2C, PIX, PXB, P2C, PXN, PHB, SYS, or an integer from 0 (LOC, PIX, PXB, PHB, "
    "SYS, SYS)";

// strtoll(str, NULL, 0) as param.cc ncclLoadParam reads a number, but whole: NCCL would read
// "4M" as 4, which is never what was meant, so trailing text is refused here.
std::optional<long long> whole_number(const std::string& text) {
  if (text.empty()) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 0);
  if (errno != 0 || end != text.c_str() + text.size()) return std::nullopt;
  return v;
}

// ncclGetLevel (paths.cc): a path type's name, or an old-style integer. NCCL ignores anything
// else (the default stands); linksim refuses it, so that a typo is not a silent default.
NcclPath read_level(const std::string& text, std::string_view variable) {
  for (std::size_t i = 0; i < kPathNames.size(); ++i) {
    if (text == kPathNames[i]) return static_cast<NcclPath>(i);
  }
  if (!text.empty() && text.front() >= '0' && text.front() <= '9') {
    if (const auto old = whole_number(text)) {
      return kOldLevels[static_cast<std::size_t>(std::min<long long>(*old, 5))];
    }
  }
  throw InputError("", std::string(variable),
                   fmt::format("\"{}\" is not a path level; expected {}", text, kLevelsAccepted));
}

// NCCL_NET_GDR_LEVEL as the cluster's gpudirect_rdma levels (topo/gpudirect.cpp
// level_path_type). A GPU-NIC path is PIX or farther, so LOC to C2C allow no GPUDirect RDMA;
// linksim's GPU-NIC distances are PIX, PXB, P2C, PHB and SYS, so PXN (7) allows what P2C (6)
// allows, which is NCCL's default level (NCCL_NET_GDR_C2C=1).
GdrLevel gdr_level_of(NcclPath level) {
  switch (level) {
    case NcclPath::loc:
    case NcclPath::nvl:
    case NcclPath::nvb:
    case NcclPath::c2c:
      return GdrLevel::off;
    case NcclPath::pix:
      return GdrLevel::pix;
    case NcclPath::pxb:
      return GdrLevel::pxb;
    case NcclPath::p2c:
    case NcclPath::pxn:
      return GdrLevel::automatic;
    case NcclPath::phb:
      return GdrLevel::phb;
    case NcclPath::sys:
      return GdrLevel::sys;
  }
  return GdrLevel::automatic;
}

// A flag NCCL tests for exactly 1 (paths.cc ncclGetLevel: strtol(...) == 1; shm.cc
// ncclParamShmDisable() == 1): 1 sets it, 0 leaves it; anything else NCCL ignores and linksim
// refuses.
bool read_flag(const std::string& text, std::string_view variable) {
  const auto v = whole_number(text);
  if (!v || (*v != 0 && *v != 1)) {
    throw InputError("", std::string(variable),
                     fmt::format("\"{}\": expected 1 (disable) or 0 (NCCL's default)", text));
  }
  return *v == 1;
}

}  // namespace

std::string_view to_string(NcclPath p) {
  return kPathNames[static_cast<std::size_t>(p)];
}

const std::vector<std::string_view>& nccl_environment_variables() {
  static const std::vector<std::string_view> names{
      "NCCL_P2P_DISABLE", "NCCL_P2P_LEVEL", "NCCL_SHM_DISABLE",   "NCCL_NET_GDR_LEVEL",
      "NCCL_NTHREADS",    "NCCL_BUFFSIZE",  "OFI_NCCL_TUNER_TYPE"};
  return names;
}

NcclEnvironment read_nccl_environment(const std::function<std::string(std::string_view)>& value,
                                      std::vector<std::string>& notes) {
  NcclEnvironment env;
  // paths.cc ncclGetUserP2pLevel: NCCL_P2P_DISABLE=1 is PATH_LOC and wins over NCCL_P2P_LEVEL.
  if (const std::string d = value("NCCL_P2P_DISABLE"); !d.empty()) {
    if (read_flag(d, "NCCL_P2P_DISABLE")) env.p2p_level = NcclPath::loc;
  }
  if (const std::string l = value("NCCL_P2P_LEVEL"); !l.empty()) {
    const NcclPath level = read_level(l, "NCCL_P2P_LEVEL");
    if (!env.p2p_level) env.p2p_level = level;
  }
  if (const std::string s = value("NCCL_SHM_DISABLE"); !s.empty()) {
    env.shm_disable = read_flag(s, "NCCL_SHM_DISABLE");
  }
  // nccl_ofi_tuner.cpp compares with strcasecmp: "Internal" falls back to NCCL's tuner; "Model"
  // asks for its model-based tuner, which linksim does not model (it keeps the regions); any
  // other value is the default, the regions.
  if (const std::string t = value("OFI_NCCL_TUNER_TYPE"); !t.empty()) {
    if (ascii_lower(t) == "internal") {
      env.aws_ofi_tuner_off = true;
    } else if (ascii_lower(t) == "model") {
      notes.push_back(
          "OFI_NCCL_TUNER_TYPE=Model: aws-ofi-nccl's model-based tuner is not modelled; linksim "
          "keeps its region tuner");
    }
  }
  if (const std::string g = value("NCCL_NET_GDR_LEVEL"); !g.empty()) {
    env.net_gdr_level = gdr_level_of(read_level(g, "NCCL_NET_GDR_LEVEL"));
  }
  // tuning.cc getNthreads: a positive value not a multiple of WARP_SIZE (32) becomes the maximum,
  // above the maximum the maximum, below 2 x WARP_SIZE that; 0 or less keeps NCCL's default. LL
  // and Simple share the bounds: NCCL_LL_MAX_NTHREADS = NCCL_SIMPLE_MAX_NTHREADS = 512
  // (src/include/device.h).
  if (const std::string t = value("NCCL_NTHREADS"); !t.empty()) {
    const auto v = whole_number(t);
    if (!v) {
      throw InputError("", "NCCL_NTHREADS",
                       fmt::format("\"{}\": expected a whole number of threads per channel, a "
                                   "multiple of 32 from 64 to 512",
                                   t));
    }
    constexpr long long kMost = 512;
    constexpr long long kLeast = 64;
    if (*v > 0) {
      long long nt = *v;
      if (nt % 32 != 0) {
        nt = kMost;
        notes.push_back(
            fmt::format("NCCL_NTHREADS={} is not a multiple of 32; NCCL uses {}", *v, nt));
      } else if (nt > kMost) {
        nt = kMost;
        notes.push_back(fmt::format("NCCL_NTHREADS={} is above {}; NCCL uses {}", *v, kMost, nt));
      } else if (nt < kLeast) {
        nt = kLeast;
        notes.push_back(fmt::format("NCCL_NTHREADS={} is below {}; NCCL uses {}", *v, kLeast, nt));
      }
      env.nthreads = static_cast<int>(nt);
    }
  }
  // init.cc computeBuffSizes takes NCCL_BUFFSIZE as given; the bounds are a cluster file's
  // nccl_env's (topo/cluster_loader.cpp): below 64 KiB a slot of NCCL_STEPS holds too little for
  // the kernels, and no platform sets more than a few MiB.
  if (const std::string b = value("NCCL_BUFFSIZE"); !b.empty()) {
    const auto v = whole_number(b);
    constexpr long long kLeast = 64 * 1024;
    constexpr long long kMost = 1024LL * 1024 * 1024;
    if (!v || *v < kLeast || *v > kMost) {
      throw InputError(
          "", "NCCL_BUFFSIZE",
          fmt::format("\"{}\": expected a buffer size in bytes from {} to {}", b, kLeast, kMost));
    }
    env.buffsize_bytes = static_cast<double>(*v);
  }
  return env;
}

}  // namespace linksim::topo
