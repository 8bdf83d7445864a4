// `linksim topo ...`: show, check, import, export, dot, list.
#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <sstream>

#include "sim/cli/command_outputs.hpp"
#include "sim/cli/commands.hpp"
#include "sim/cli/machine_option.hpp"
#include "sim/core/error.hpp"
#include "sim/core/json_view.hpp"
#include "sim/topo/describe.hpp"
#include "sim/topo/dot.hpp"
#include "sim/topo/fabric_summary.hpp"
#include "sim/topo/loader.hpp"
#include "sim/topo/nccl_xml.hpp"
#include "sim/topo/smi_matrix.hpp"
#include "sim/topo/smi_matrix_compare.hpp"
#include "sim/topo/smi_matrix_format.hpp"
#include "sim/topo/smi_matrix_import.hpp"
#include "sim/topo/smi_matrix_parse.hpp"
#include "sim/topo/summary.hpp"

namespace linksim::cli {
namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", "cannot open file for reading");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

void register_topo(CLI::App& app) {
  auto* topo_cmd = app.add_subcommand("topo", "Describe, check, import and draw machines");
  topo_cmd->require_subcommand(1);
  add_topo_graphs(topo_cmd);  // LOCAL, for testing the graphs branch: the lead may drop or keep

  {
    auto* cmd = topo_cmd->add_subcommand(
        "show",
        "The nvidia-smi topo -m printout of a machine, byte for byte as nvidia-smi prints it");
    auto file = std::make_shared<std::string>();
    auto nodes = std::make_shared<int>(0);
    auto format = std::make_shared<std::string>("table");
    auto summary = std::make_shared<bool>(false);
    cmd->add_option("file", *file, "Topology file, or the name of a shipped machine")->required();
    add_nodes_option(cmd, *nodes);
    cmd->add_option("--format", *format, "table (nvidia-smi's layout), json or csv")
        ->check(CLI::IsMember({"table", "json", "csv"}));
    cmd->add_flag("--summary", *summary,
                  "After the printout's legend, linksim's summary (bandwidths, the fabric of a "
                  "cluster); table only");
    cmd->callback([file, nodes, format, summary] {
      const topo::Topology t = load_machine(*file, *nodes);
      // A cluster shows one host as nvidia-smi would on it; --summary adds its fabric.
      const topo::Topology& host = t.is_cluster() ? *t.cluster->host : t;
      const topo::Router router(host);
      const topo::SmiMatrix matrix = topo::smi_matrix(host, router);
      if (*format == "json") {
        std::cout << topo::smi_matrix_json(matrix);
        return;
      }
      if (*format == "csv") {
        std::cout << topo::smi_matrix_csv(matrix);
        return;
      }
      std::string out = topo::format_smi_matrix(matrix);
      if (*summary) {
        out += "\n" + topo::describe_summary(host, topo::summarize(host, router));
        if (t.is_cluster()) out += "\n" + topo::describe_fabric(t, topo::summarize_fabric(t));
      }
      std::cout << out;
    });
  }
  {
    auto* cmd = topo_cmd->add_subcommand("check", "Validate a machine and explain what it is");
    auto file = std::make_shared<std::string>();
    auto nodes = std::make_shared<int>(0);
    cmd->add_option("file", *file, "Topology file, or the name of a shipped machine")->required();
    add_nodes_option(cmd, *nodes);
    cmd->callback([file, nodes] {
      const topo::Topology t = load_machine(*file, *nodes);
      const topo::Topology& host = t.is_cluster() ? *t.cluster->host : t;
      const topo::Router router(host);
      std::string out = topo::explain_machine(host, topo::summarize(host, router));
      if (t.is_cluster()) out += "\n" + topo::describe_fabric(t, topo::summarize_fabric(t));
      std::cout << out;
    });
  }
  {
    auto* cmd = topo_cmd->add_subcommand(
        "import",
        "Turn a real `nvidia-smi topo -m` printout, or NCCL's topology XML, into a topology file");
    auto printout = std::make_shared<std::string>();
    auto gpu = std::make_shared<std::string>();
    auto output = std::make_shared<std::string>();
    auto vendor = std::make_shared<std::string>("intel");
    auto title = std::make_shared<std::string>();
    auto force = std::make_shared<bool>(false);
    cmd->add_option("printout", *printout,
                    "File holding the printout or the XML ('-' for stdin); XML is recognised by "
                    "its leading '<'")
        ->required();
    cmd->add_option("--gpu", *gpu, "GPU model (see docs/topology-format.md)")->required();
    cmd->add_option("-o,--output", *output, "Topology file to write (default: stdout)");
    cmd->add_option("--cpu-vendor", *vendor, "CPU vendor: intel, amd, ...")
        ->check(CLI::IsMember({"intel", "amd", "nvidia", "ibm", "other"}));
    cmd->add_option("--title", *title, "Title for the machine");
    cmd->add_flag("--force", *force, "Overwrite the output file");
    cmd->callback([=] {
      CommandOutputs outputs(*force);
      outputs.claim(*output);
      std::string text;
      if (*printout == "-") {
        std::ostringstream s;
        s << std::cin.rdbuf();
        text = s.str();
      } else {
        text = read_text(*printout);
      }
      const std::string out_name = is_stdout(*output) ? std::string("<stdout>") : *output;
      const auto first = text.find_first_not_of(" \t\r\n");
      if (first != std::string::npos && text[first] == '<') {
        // NCCL's topology XML (NCCL_TOPO_DUMP_FILE).
        topo::NcclXmlImportOptions options;
        options.gpu_model = *gpu;
        options.title = *title;
        options.source = *printout;
        const auto imported = topo::import_nccl_xml(text, options);
        (void)topo::parse_topology(imported.document, out_name);  // loads before it is written
        const std::string body = imported.document.dump(2) + "\n";
        outputs.put(*output, body);
        outputs.write();
        std::string report = "linksim: assumed:\n";
        for (const auto& a : imported.assumed)
          report += "  - " + a + "\n";
        std::cerr << report;
        return;
      }
      const auto matrix = topo::parse_smi_printout(text, *printout);
      topo::SmiImportOptions options;
      options.gpu_model = *gpu;
      options.cpu_vendor = *vendor;
      options.title = *title;
      options.source = *printout;
      const auto imported = topo::import_smi(matrix, options);
      // Check the result loads before writing anything.
      const topo::Topology t = topo::parse_topology(imported.document, out_name);
      const topo::Router router(t);
      const auto diffs = topo::compare_smi(matrix, topo::smi_matrix(t, router));
      const std::string body = imported.document.dump(2) + "\n";
      outputs.put(*output, body);
      outputs.write();
      std::string report = "linksim: assumed:\n";
      for (const auto& a : imported.assumed)
        report += "  - " + a + "\n";
      if (diffs.empty()) {
        report += "linksim: the imported machine reproduces the printout cell by cell\n";
      } else {
        report += "linksim: the imported machine differs from the printout:\n";
        for (const auto& d : diffs)
          report += "  - " + d + "\n";
      }
      std::cerr << report;
    });
  }
  {
    auto* cmd = topo_cmd->add_subcommand(
        "export", "Write a machine in another tool's format: NCCL's topology XML");
    auto file = std::make_shared<std::string>();
    auto format = std::make_shared<std::string>("nccl-xml");
    auto output = std::make_shared<std::string>();
    auto force = std::make_shared<bool>(false);
    cmd->add_option("file", *file, "Topology file, or the name of a shipped machine")->required();
    cmd->add_option("--format", *format,
                    "nccl-xml: the XML NCCL writes with NCCL_TOPO_DUMP_FILE and reads with "
                    "NCCL_TOPO_FILE")
        ->check(CLI::IsMember({"nccl-xml"}));
    cmd->add_option("-o,--output", *output, "File to write (default: stdout)");
    cmd->add_flag("--force", *force, "Overwrite the output file");
    // `format` is captured to keep the option's target alive (one value today).
    cmd->callback([file, format, output, force] {
      CommandOutputs outputs(*force);
      outputs.claim(*output);
      const topo::Topology t = topo::load_topology(*file);
      // A cluster exports one host, as NCCL dumps the node it runs on.
      const std::string xml = topo::to_nccl_xml(t.is_cluster() ? *t.cluster->host : t);
      outputs.put(*output, xml);
      outputs.write();
    });
  }
  {
    auto* cmd = topo_cmd->add_subcommand("dot", "Graphviz DOT of a machine");
    auto file = std::make_shared<std::string>();
    cmd->add_option("file", *file, "Topology file, or the name of a shipped machine")->required();
    cmd->callback([file] { std::cout << topo::to_dot(topo::load_topology(*file)); });
  }
  {
    auto* cmd = topo_cmd->add_subcommand("list", "One line per shipped machine");
    cmd->callback([] {
      std::string out = fmt::format("{:<28} {:<28} {:<10} {}\n", "name", "GPUs", "price", "title");
      for (const auto& f : topo::shipped_topology_files()) {
        out += topo::one_line(topo::load_topology(f)) + "\n";
      }
      std::cout << out;
    });
  }
}

}  // namespace linksim::cli
