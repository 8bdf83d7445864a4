#pragma once
// Physical link kinds and their default figures. A link in a topology file gives its kind and
// generation (and lanes/width); the default per-direction bandwidth and latency come from here,
// and any link may override them. Every default states whether it is a theoretical line rate
// or an effective figure, and cites its source.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace linksim::topo {

enum class LinkKind { nvlink, pcie, upi, qpi, xgmi, soc, c2c, infiniband, ethernet };
std::string_view to_string(LinkKind kind);
std::optional<LinkKind> link_kind_from_string(std::string_view name);
std::vector<std::string> link_kind_names();

struct LinkDefaults {
  double bandwidth_Bps = 0;  // per direction, for the whole link (all lanes)
  double latency_s = 0;
  std::string basis;  // "theoretical" or "effective"
  std::string source;
};

// Parameters of a link as written in a file; `rate` names an InfiniBand rate ("hdr", "ndr").
struct LinkSpec {
  LinkKind kind = LinkKind::pcie;
  int generation = 0;
  int lanes = 1;
  int width = 16;
  std::string rate;
};

// Default figures for a spec, or an error message when the spec is not one linksim knows
// (e.g. PCIe generation 9). Never returns a zero bandwidth.
struct LinkDefaultsResult {
  std::optional<LinkDefaults> defaults;
  std::string error;
};
LinkDefaultsResult link_defaults(const LinkSpec& spec);

// Short label used in tables: "NVLink 3 x12", "PCIe 4.0 x16", "UPI x3", "IB NDR".
std::string link_label(LinkKind kind, int generation, int lanes, int width);

}  // namespace linksim::topo
