// `linksim completion bash`: a bash completion script made from the command tree itself, so it
// always offers exactly the commands and flags that --help lists.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iostream>
#include <string>
#include <vector>

#include "sim/cli/command_outputs.hpp"
#include "sim/cli/commands.hpp"
#include "sim/core/error.hpp"

namespace linksim::cli {
namespace {

std::vector<CLI::App*> subcommands_of(CLI::App& app) {
  return app.get_subcommands([](CLI::App* sub) { return !sub->get_name().empty(); });
}

// Every flag spelling of a command: --long and -s, plus --help.
std::vector<std::string> flags_of(CLI::App& app) {
  std::vector<std::string> out;
  for (const CLI::Option* opt : app.get_options()) {
    if (!opt->nonpositional()) continue;
    for (const auto& l : opt->get_lnames())
      out.push_back("--" + l);
    for (const auto& s : opt->get_snames())
      out.push_back("-" + s);
  }
  return out;
}

// One `case` arm: the words typed so far that name this command, and what may follow them.
void add_arms(CLI::App& app, const std::string& path, std::string& arms) {
  std::vector<std::string> words = flags_of(app);
  std::vector<std::string> commands;
  for (CLI::App* sub : subcommands_of(app))
    commands.push_back(sub->get_name());
  words.insert(words.end(), commands.begin(), commands.end());
  arms += fmt::format("    \"{}\") words=\"{}\"; commands=\"{}\" ;;\n", path, fmt::join(words, " "),
                      fmt::join(commands, " "));
  for (CLI::App* sub : subcommands_of(app))
    add_arms(*sub, path.empty() ? sub->get_name() : path + " " + sub->get_name(), arms);
}

std::string bash_completion(CLI::App& root) {
  std::string arms;
  add_arms(root, "", arms);
  return fmt::format(R"(# bash completion for linksim, made by `linksim completion bash`.
# Install: linksim completion bash > /etc/bash_completion.d/linksim (or source it).
_linksim() {{
  local cur="${{COMP_WORDS[COMP_CWORD]}}" path="" words="" commands="" i w
  # The command path: the words so far that name a (sub)command, level by level.
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="${{COMP_WORDS[i]}}"
    _linksim_level "$path"
    case " $commands " in *" $w "*) path="${{path:+$path }}$w" ;; esac
  done
  _linksim_level "$path"
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$words" -- "$cur"))
  else
    COMPREPLY=($(compgen -W "$commands" -- "$cur") $(compgen -f -- "$cur"))
  fi
}}
_linksim_level() {{
  case "$1" in
{}    *) words=""; commands="" ;;
  esac
}}
complete -F _linksim linksim
)",
                     arms);
}

}  // namespace

void register_completion(CLI::App& app) {
  auto shell = std::make_shared<std::string>();
  auto output = std::make_shared<TextOutput>();
  auto* cmd = app.add_subcommand("completion", "Print a shell completion script (bash)");
  cmd->add_option("shell", *shell, "The shell: bash")->required();
  add_text_output(cmd, *output);
  cmd->callback([&app, shell, output] {
    if (*shell != "bash") {
      throw InputError("", "",
                       fmt::format("no completion for shell \"{}\"; expected bash", *shell));
    }
    write_text(*output, [&] { return bash_completion(app); });
  });
}

}  // namespace linksim::cli
