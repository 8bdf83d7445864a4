#pragma once
// Tasks of a simulation: what each one does and what it waits for.

#include <cstdint>
#include <string_view>

namespace linksim::engine {

using TaskId = std::uint32_t;
using ChannelId = std::uint32_t;  // a capacity: one direction of a physical link
using PathId = std::uint32_t;

enum class TaskKind : std::uint8_t {
  compute,   // keeps one GPU busy for a duration
  transfer,  // moves bytes over one or more paths; pays path latency, then shares links
  delay,     // waits for a duration, on no resource
  barrier,   // takes no time; completes when its dependencies have
};
std::string_view to_string(TaskKind kind);

// The GPU index a task runs on or talks to; kNoGpu for none (a CPU or a NIC endpoint, say).
inline constexpr int kNoGpu = -1;

// One path of a transfer: the bytes it carries are the transfer's bytes times `share`.
struct PathShare {
  PathId path = 0;
  double share = 1.0;
};

}  // namespace linksim::engine
