#include "sim/engine/task.hpp"

namespace linksim::engine {

std::string_view to_string(TaskKind kind) {
  switch (kind) {
    case TaskKind::compute:
      return "compute";
    case TaskKind::transfer:
      return "transfer";
    case TaskKind::delay:
      return "delay";
    case TaskKind::barrier:
      return "barrier";
  }
  return "?";
}

}  // namespace linksim::engine
