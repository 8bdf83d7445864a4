#include "sim/app/machine_import.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string_view>

#include "sim/core/error.hpp"
#include "sim/topo/gpu_model.hpp"
#include "sim/topo/loader.hpp"
#include "sim/topo/nccl_xml.hpp"
#include "sim/topo/routing.hpp"
#include "sim/topo/smi_matrix.hpp"
#include "sim/topo/smi_matrix_compare.hpp"
#include "sim/topo/smi_matrix_import.hpp"
#include "sim/topo/smi_matrix_parse.hpp"

namespace linksim::app {
namespace {

// A UTF-8 byte order mark, which some Windows editors write first: part of neither format.
constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

std::string without_bom(const std::string& text) {
  return text.starts_with(kUtf8Bom) ? text.substr(kUtf8Bom.size()) : text;
}

bool is_xml(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  return first != std::string::npos && text[first] == '<';
}

std::string assumed_lines(const std::vector<std::string>& assumed) {
  std::string report = "linksim: assumed:\n";
  for (const auto& a : assumed)
    report += "  - " + a + "\n";
  return report;
}

MachineImport import_nccl_xml(const std::string& text, const MachineImportOptions& options) {
  topo::NcclXmlImportOptions xml;
  xml.gpu_model = options.gpu_model;
  xml.title = options.title;
  xml.source = options.source;
  xml.nvlink = options.nvlink;
  const auto imported = topo::import_nccl_xml(text, xml);
  (void)topo::parse_topology(imported.document, options.output_name);  // loads before written
  return {imported.document.dump(2) + "\n", assumed_lines(imported.assumed)};
}

MachineImport import_smi_printout(const std::string& text, const MachineImportOptions& options) {
  const auto matrix = topo::parse_smi_printout(text, options.source);
  topo::SmiImportOptions smi;
  smi.gpu_model = options.gpu_model;
  smi.cpu_vendor = options.cpu_vendor;
  smi.title = options.title;
  smi.source = options.source;
  // import_smi has already refused a printout whose classes or NIC names the machine would not
  // reprint; what can still differ is an affinity column a machine file cannot hold.
  const auto imported = topo::import_smi(matrix, smi);
  const topo::Topology t = topo::parse_topology(imported.document, options.output_name);
  const topo::Router router(t);
  const auto diffs = topo::compare_smi(matrix, topo::smi_matrix(t, router));
  std::string report = assumed_lines(imported.assumed);
  if (diffs.empty()) {
    report += "linksim: the imported machine reproduces the printout cell by cell\n";
  } else {
    report +=
        "linksim: the imported machine reproduces every cell and NIC name of the printout; "
        "these affinities re-print otherwise (a machine file cannot hold them):\n";
    for (const auto& d : diffs)
      report += "  - " + d + "\n";
  }
  return {imported.document.dump(2) + "\n", report};
}

}  // namespace

MachineImport import_machine(const std::string& text, const MachineImportOptions& options) {
  // The model comes from the command line (--gpu), or for NCCL XML from the GPUs' PCI ids: an
  // unknown one is the option's fault, whatever the file holds.
  if (!options.gpu_model.empty() && !topo::find_gpu_model(options.gpu_model)) {
    throw InputError("", "--gpu",
                     fmt::format("unknown GPU model \"{}\"; known models: {}", options.gpu_model,
                                 fmt::join(topo::gpu_model_names(), ", ")));
  }
  // The BOM sits before line 1's text, so the parsers' line numbers stay the file's.
  const std::string body = without_bom(text);
  if (is_xml(body)) return import_nccl_xml(body, options);
  if (options.gpu_model.empty()) {
    throw InputError("", "--gpu",
                     fmt::format("required for a printout, which does not name its GPUs' model; "
                                 "known models: {}",
                                 fmt::join(topo::gpu_model_names(), ", ")));
  }
  if (!options.nvlink.empty()) {
    throw InputError("", "--nvlink",
                     "is for NCCL XML whose GPUs are <pci> entries only; a printout gives its "
                     "NVLinks");
  }
  return import_smi_printout(body, options);
}

}  // namespace linksim::app
