#pragma once
// Names for what the engine numbers, so that results read in the caller's terms: task ids,
// GPU indices and channel ids each map to a name (topo::channel_names gives a machine's).
//
// A trace may also label tasks by what they share (the collective they belong to, the layer
// they compute): a table of labels and one index per task, so that a graph of millions of
// tasks costs four bytes a task, not a string.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sim/engine/task.hpp"

namespace linksim::engine {

// What the tasks with one label share: a slice name and its arguments, as a trace shows them.
struct TaskLabel {
  std::string name;
  std::vector<std::pair<std::string, std::string>> text;  // "algorithm": "Ring"
  std::vector<std::pair<std::string, double>> numbers;    // "layer": 12
};

// One communication operation (a collective, a send, a copy): tasks [first_task, last_task],
// the GPUs taking part, and its label.
struct LabelledOp {
  TaskId first_task = 0;
  TaskId last_task = 0;
  std::uint32_t label = 0;
  std::vector<int> gpus;
};

struct Names {
  static constexpr std::uint32_t kNoLabel = ~std::uint32_t{0};

  std::vector<std::string> tasks;     // by task id (may be empty where task_labels names them)
  std::vector<std::string> gpus;      // by GPU index
  std::vector<std::string> channels;  // by channel id
  // Optional (default member initializers, so that {tasks, gpus, channels} still initializes
  // the rest): by task id, an index into `labels` or kNoLabel (then `tasks` names it, if given).
  std::vector<TaskLabel> labels{};
  std::vector<std::uint32_t> task_labels{};
  // Optional: the operations that communication tasks belong to, by first task.
  std::vector<LabelledOp> ops{};
};

}  // namespace linksim::engine
