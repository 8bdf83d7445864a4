// `linksim topo ...`: show, check, import, export, dot, list.
#include <iostream>

#include "sim/app/machine_import.hpp"
#include "sim/app/machine_views.hpp"
#include "sim/cli/command_outputs.hpp"
#include "sim/cli/commands.hpp"
#include "sim/cli/machine_option.hpp"
#include "sim/core/text_file.hpp"
#include "sim/topo/dot.hpp"
#include "sim/topo/loader.hpp"
#include "sim/topo/nccl_xml.hpp"

namespace linksim::cli {
namespace {

constexpr const char* kMachineHelp = "Topology file, or the name of a shipped machine";

// --format table|json|csv, one spelling for every topo command that has figures.
void add_format_option(CLI::App* cmd, std::string& format, const std::string& table_is) {
  cmd->add_option("--format", format, "table (" + table_is + "), json or csv")
      ->check(CLI::IsMember({"table", "json", "csv"}));
}

app::ViewFormat view_format(const std::string& format) {
  return format == "json"  ? app::ViewFormat::json
         : format == "csv" ? app::ViewFormat::csv
                           : app::ViewFormat::table;
}

void add_show(CLI::App* topo_cmd) {
  auto* cmd = topo_cmd->add_subcommand(
      "show",
      "The nvidia-smi topo -m printout of a machine, byte for byte as nvidia-smi prints it");
  auto file = std::make_shared<std::string>();
  auto nodes = std::make_shared<int>(0);
  auto format = std::make_shared<std::string>("table");
  auto summary = std::make_shared<bool>(false);
  auto output = std::make_shared<TextOutput>();
  cmd->add_option("file", *file, kMachineHelp)->required();
  add_nodes_option(cmd, *nodes);
  add_format_option(cmd, *format, "nvidia-smi's layout");
  cmd->add_flag("--summary", *summary,
                "After the printout's legend, linksim's summary (bandwidths, the fabric of a "
                "cluster); table only");
  add_text_output(cmd, *output);
  cmd->callback([file, nodes, format, summary, output] {
    write_text(*output, [&] {
      return app::smi_view(load_machine(*file, *nodes), view_format(*format), *summary);
    });
  });
}

void add_check(CLI::App* topo_cmd) {
  auto* cmd = topo_cmd->add_subcommand("check", "Validate a machine and explain what it is");
  auto file = std::make_shared<std::string>();
  auto nodes = std::make_shared<int>(0);
  auto format = std::make_shared<std::string>("table");
  auto output = std::make_shared<TextOutput>();
  cmd->add_option("file", *file, kMachineHelp)->required();
  add_nodes_option(cmd, *nodes);
  add_format_option(cmd, *format, "the explanation");
  add_text_output(cmd, *output);
  cmd->callback([file, nodes, format, output] {
    write_text(*output, [&] {
      return app::machine_check(load_machine(*file, *nodes), view_format(*format));
    });
  });
}

void add_import(CLI::App* topo_cmd) {
  auto* cmd = topo_cmd->add_subcommand(
      "import",
      "Turn a real `nvidia-smi topo -m` printout, or NCCL's topology XML, into a topology file");
  auto printout = std::make_shared<std::string>();
  auto options = std::make_shared<app::MachineImportOptions>();
  auto output = std::make_shared<std::string>();
  auto force = std::make_shared<bool>(false);
  cmd->add_option("printout", *printout,
                  "File holding the printout or the XML ('-' for stdin); XML is recognised by "
                  "its leading '<'")
      ->required();
  cmd->add_option("--gpu", options->gpu_model,
                  "GPU model (see docs/topology-format.md); required for a printout, and for NCCL "
                  "XML whose GPUs' PCI ids name no model linksim knows");
  cmd->add_option("-o,--output", *output, "Topology file to write (default: stdout)")
      ->check(output_file_name());
  cmd->add_option("--cpu-vendor", options->cpu_vendor, "CPU vendor: intel, amd, ...")
      ->check(CLI::IsMember({"intel", "amd", "nvidia", "ibm", "other"}));
  cmd->add_option("--title", options->title, "Title for the machine");
  cmd->add_option("--nvlink", options->nvlink,
                  "NCCL XML without <gpu> elements (a PCI-only file, as AWS ships): how its GPUs' "
                  "NVLinks are joined, nvswitch or none")
      ->check(CLI::IsMember({"nvswitch", "none"}));
  cmd->add_flag("--force", *force, "Overwrite the output file");
  cmd->callback([=] {
    CommandOutputs outputs(*force);
    outputs.claim(*output);
    std::string text;
    if (*printout == "-") {
      text = read_text_stream(std::cin, "-");
    } else {
      text = read_text_file(*printout);
    }
    options->source = *printout;
    options->output_name = is_stdout(*output) ? std::string("<stdout>") : *output;
    const app::MachineImport imported = app::import_machine(text, *options);
    outputs.put(*output, imported.document);
    outputs.write();
    std::cerr << imported.report;
  });
}

void add_export(CLI::App* topo_cmd) {
  auto* cmd = topo_cmd->add_subcommand(
      "export", "Write a machine in another tool's format: NCCL's topology XML");
  auto file = std::make_shared<std::string>();
  auto format = std::make_shared<std::string>("nccl-xml");
  auto output = std::make_shared<std::string>();
  auto force = std::make_shared<bool>(false);
  cmd->add_option("file", *file, kMachineHelp)->required();
  cmd->add_option("--format", *format,
                  "nccl-xml: the XML NCCL writes with NCCL_TOPO_DUMP_FILE and reads with "
                  "NCCL_TOPO_FILE")
      ->check(CLI::IsMember({"nccl-xml"}));
  cmd->add_option("-o,--output", *output, "File to write (default: stdout)")
      ->check(output_file_name());
  cmd->add_flag("--force", *force, "Overwrite the output file");
  // `format` is captured to keep the option's target alive (one value today).
  cmd->callback([file, format, output, force] {
    CommandOutputs outputs(*force);
    outputs.claim(*output);
    const topo::Topology t = topo::load_topology(*file);
    // A cluster exports one host, as NCCL dumps the node it runs on.
    outputs.put(*output, topo::to_nccl_xml(t.is_cluster() ? *t.cluster->host : t));
    outputs.write();
  });
}

}  // namespace

void register_topo(CLI::App& app) {
  auto* topo_cmd = app.add_subcommand("topo", "Describe, check, import and draw machines");
  topo_cmd->require_subcommand(1);
  add_show(topo_cmd);
  add_check(topo_cmd);
  add_import(topo_cmd);
  add_export(topo_cmd);
  add_topo_graphs(topo_cmd);  // cmd_topo_graphs.cpp
  {
    auto* cmd = topo_cmd->add_subcommand("dot", "Graphviz DOT of a machine");
    auto file = std::make_shared<std::string>();
    auto output = std::make_shared<TextOutput>();
    cmd->add_option("file", *file, kMachineHelp)->required();
    add_text_output(cmd, *output);
    cmd->callback([file, output] {
      write_text(*output, [&] { return topo::to_dot(topo::load_topology(*file)); });
    });
  }
  {
    auto* cmd = topo_cmd->add_subcommand("list", "One line per shipped machine");
    auto format = std::make_shared<std::string>("table");
    auto output = std::make_shared<TextOutput>();
    add_format_option(cmd, *format, "one line each");
    add_text_output(cmd, *output);
    cmd->callback([format, output] {
      write_text(*output, [&] { return app::shipped_machines_list(view_format(*format)); });
    });
  }
}

}  // namespace linksim::cli
