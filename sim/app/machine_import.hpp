#pragma once
// The library call behind `linksim topo import`: a machine file made from what a real node
// prints, either `nvidia-smi topo -m` or NCCL's topology XML (NCCL_TOPO_DUMP_FILE), checked
// before the caller writes it.
//
//   app::MachineImportOptions options;
//   options.gpu_model = "H100-SXM5-80GB";
//   const app::MachineImport m = app::import_machine(read_text_file("smi.txt"), options);
//   std::cout << m.document;  std::cerr << m.report;

#include <string>

namespace linksim::app {

struct MachineImportOptions {
  // The GPU model (topo's catalog, docs/topology-format.md): neither printout names it. Required.
  std::string gpu_model;
  // The CPU vendor, for the host links nvidia-smi does not describe (intel, amd, nvidia, ibm,
  // other); NCCL's XML says its own.
  std::string cpu_vendor = "intel";
  // The machine's title; empty: one made from what was imported.
  std::string title;
  // For NCCL XML that gives its GPUs as <pci> entries only (no NVLinks): "nvswitch" or "none"
  // (topo::NcclXmlImportOptions::nvlink). Empty: not given. A printout states its NVLinks, so
  // giving it there is refused.
  std::string nvlink;
  // Where the text came from, named in the file's sources and in errors. Required.
  std::string source;
  // The name the written file will have, for errors found when loading it back ("<stdout>").
  std::string output_name = "<stdout>";
};

struct MachineImport {
  std::string document;  // the machine file's text (JSON, newline-terminated)
  // What the import assumed, and for a printout that the machine reproduces it cell by cell, or
  // each affinity value it re-prints otherwise (a NUMA list, a GPU NUMA ID), as lines starting
  // "linksim: ".
  std::string report;
};

// `text` is NCCL's XML when its first non-blank character, after a UTF-8 byte order mark if it
// starts with one, is '<', else a printout. The result loads as a machine (checked here).
// Throws InputError for bad input: located at "--gpu" (no file) for a GPU model the catalog
// does not know, else at `source`, and for a printout with a cell (class or NIC name) no
// machine linksim can describe would re-print, naming that cell and its line.
MachineImport import_machine(const std::string& text, const MachineImportOptions& options);

}  // namespace linksim::app
