#pragma once
// The CUDA samples read their options with either dash (helper_string.h's checkCmdLineFlag
// skips one or two '-'), so a pasted `bandwidthTest -device=all -mode=shmoo` or
// `p2pBandwidthLatencyTest -p2p_read` is how people run them. `linksim bandwidth` and
// `linksim p2p` take the same words; this spells a single-dash sample option with two dashes
// before CLI11, which would otherwise read `-device=all` as the short flags -d -e -v ...

#include <string>
#include <vector>

namespace linksim::cli {

// For `args` (argv, the program first) whose command is `bandwidth` or `p2p`: each argument
// "-NAME" or "-NAME=VALUE" with NAME one of that command's sample options becomes
// "--NAME[=VALUE]", its text kept in `storage` (which must outlive `args`). Anything else,
// and every other command's arguments, stay as they are.
void spell_sample_options_with_two_dashes(std::vector<char*>& args,
                                          std::vector<std::string>& storage);

}  // namespace linksim::cli
