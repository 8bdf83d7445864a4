#pragma once
// Which NCCL release a run uses, as NCCL_VERSION_CODE (major x 10000 + minor x 100 + patch for
// 2.9 and later: 2.18.5 is 21805). Releases move data differently in places (how a collective
// is spread over its channels, for one), and the sweeps a user compares against name theirs.

#include <stdexcept>
#include <string>
#include <string_view>

namespace linksim {

// The release whose source the model follows (NVIDIA/nccl 5067397c, 2.30.7), the default.
inline constexpr int kModelledNcclVersion = 23007;
// The oldest release the model can stand for: 2.9, where NCCL_VERSION_CODE took its form.
inline constexpr int kOldestNcclVersion = 20900;

class NcclVersionError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// "2.18.5", "2.18.5-1" (a release tag's package suffix) or "21805"; throws NcclVersionError
// naming what was expected for anything else, or a release before 2.9.
int parse_nccl_version(std::string_view text);

// "2.18.5".
std::string nccl_version_text(int code);

}  // namespace linksim
