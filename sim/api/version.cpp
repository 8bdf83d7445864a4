// linksim::version (include/linksim/version.hpp): the project's version, which CMakeLists.txt
// defines on this file alone.
#include <linksim/version.hpp>

namespace linksim {

const char* version() {
  return LINKSIM_VERSION;
}

}  // namespace linksim
