#pragma once
// Case folding for names users type (NCCL_PROTO lists, operation and protocol names, file
// extensions): ASCII only, as NCCL's strcasecmp and the names themselves are.

#include <string>
#include <string_view>

namespace linksim {

std::string ascii_lower(std::string_view s);

}  // namespace linksim
