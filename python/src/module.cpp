// linksim._core: the Python module over sim/app, the façade the CLI uses (nccl-tests through
// the C++ package's call over it, include/linksim/nccl_tests.hpp). Each function takes
// what the matching command takes and returns plain Python values (str, int, float, dict,
// list); python/linksim/__init__.py checks argument types and shapes the results. Nothing here
// computes a figure: numbers come from sim/app and the report layer, as the CLI prints them.
//
// Errors: linksim::InputError becomes linksim.InputError (python/linksim/_errors.py) with the
// C++ error's file, location and message; anything else pybind11 translates (std::exception
// -> RuntimeError).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <linksim/nccl_tests.hpp>
#include <string>
#include <vector>

#include "sim/app/machine.hpp"
#include "sim/app/machine_views.hpp"
#include "sim/app/scenario_report.hpp"
#include "sim/app/scenario_run.hpp"
#include "sim/core/atomic_write.hpp"
#include "sim/core/error.hpp"
#include "sim/topo/link_kind.hpp"
#include "sim/topo/topology.hpp"

namespace py = pybind11;
using namespace pybind11::literals;

namespace linksim::python {
namespace {

app::ViewFormat view_format(const std::string& format) {
  if (format == "table") return app::ViewFormat::table;
  if (format == "json") return app::ViewFormat::json;
  if (format == "csv") return app::ViewFormat::csv;
  throw InputError("", "format", "expected \"table\", \"json\" or \"csv\", got \"" + format + "\"");
}

// An nccl-tests row as the printed columns (linksim::NcclTestsRow, include/linksim/).
py::dict row_dict(const NcclTestsRow& row) {
  return py::dict(
      "size"_a = row.size_bytes, "count"_a = row.count, "type"_a = row.type, "redop"_a = row.redop,
      "root"_a = row.root, "time_us"_a = row.time_us, "algbw"_a = row.algbw_GBps,
      "busbw"_a = row.busbw_GBps, "in_place_time_us"_a = row.in_place_time_us,
      "in_place_algbw"_a = row.in_place_algbw_GBps, "in_place_busbw"_a = row.in_place_busbw_GBps);
}

// `linksim nccl-tests --topology MACHINE [--nodes N] [--np N] BINARY ARGS...` with `environment`
// as the process environment: the C++ package's call. A -J FILE in `arguments` is written as the
// CLI writes it (never over an existing file: nccl-tests' FILE.0, FILE.1, ... probing), after
// the run succeeds.
py::dict nccl_tests(const std::string& binary, const std::vector<std::string>& arguments,
                    const std::string& machine, int nodes, int processes,
                    const std::vector<std::string>& environment, const std::string& algo,
                    const std::string& proto, const std::string& nccl_version, int threads) {
  NcclTestsResult result;
  {
    py::gil_scoped_release release;
    NcclTestsOptions options;
    options.binary = binary;
    options.arguments = arguments;
    options.machine = machine;
    options.nodes = nodes;
    options.processes = processes;
    options.environment = environment;
    options.algo = algo;
    options.proto = proto;
    options.nccl_version = nccl_version;
    options.threads = threads;
    result = simulate_nccl_tests(options);
    if (!result.json_path.empty()) write_file_atomically(result.json_path, result.json, false);
  }
  py::list rows;
  for (const auto& row : result.rows)
    rows.append(row_dict(row));
  return py::dict("rows"_a = rows, "printout"_a = result.printout, "notes"_a = result.notes,
                  "json"_a = result.json, "json_path"_a = result.json_path,
                  "machine"_a = result.machine, "ranks"_a = result.ranks);
}

// `linksim run SCENARIO [-t MACHINE]... [--nodes N] --format json`: the report's text.
std::string run_json(const std::string& scenario, const std::vector<std::string>& machines,
                     int nodes, int threads) {
  py::gil_scoped_release release;
  app::ScenarioRunOptions options;
  options.scenario = scenario;
  options.machines = machines;
  options.nodes = nodes;
  options.threads = threads;
  return app::scenario_runs_json(app::run_scenario(options));
}

py::dict node_dict(const topo::Node& node) {
  py::dict d("id"_a = node.id, "kind"_a = std::string(topo::to_string(node.kind)),
             "ordinal"_a = node.ordinal, "model"_a = node.model, "host"_a = node.host);
  if (node.gpu) {
    d["memory_bytes"] = node.gpu->memory_bytes;
    d["hbm_bandwidth_Bps"] = node.gpu->hbm_bandwidth_Bps;
    d["architecture"] = node.gpu->architecture;
    d["sm_count"] = node.gpu->sm_count;
  }
  return d;
}

py::dict link_dict(const topo::Topology& machine, const topo::Link& link) {
  return py::dict("a"_a = machine.node(link.a).id, "b"_a = machine.node(link.b).id,
                  "kind"_a = std::string(topo::to_string(link.kind)),
                  "label"_a = topo::link_label(link.kind, link.generation, link.lanes, link.width),
                  "generation"_a = link.generation, "lanes"_a = link.lanes, "width"_a = link.width,
                  "bandwidth_Bps"_a = link.bandwidth_Bps, "latency_s"_a = link.latency_s);
}

}  // namespace
}  // namespace linksim::python

PYBIND11_MODULE(_core, m) {
  using namespace linksim;
  using namespace linksim::python;
  m.doc() = "linksim's C++ core (sim/app); use the linksim package, not this module";
  m.attr("__version__") = LINKSIM_VERSION;

  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const InputError& e) {
      py::object cls = py::module_::import("linksim._errors").attr("InputError");
      py::object error = cls(std::string(e.what()), e.file(), e.location(), e.message());
      PyErr_SetObject(cls.ptr(), error.ptr());
    }
  });

  m.def("nccl_tests", &nccl_tests, "binary"_a, "arguments"_a, "machine"_a, "nodes"_a, "processes"_a,
        "environment"_a, "algo"_a, "proto"_a, "nccl_version"_a, "threads"_a);
  m.def("run_json", &run_json, "scenario"_a, "machines"_a, "nodes"_a, "threads"_a);
  m.def(
      "shipped_machines",
      [](const std::string& format) { return app::shipped_machines_list(view_format(format)); },
      "format"_a);

  // A loaded machine; python/linksim/_machine.py's Machine wraps it.
  py::class_<topo::Topology>(m, "Topology")
      .def_readonly("name", &topo::Topology::name)
      .def_readonly("title", &topo::Topology::title)
      .def_readonly("description", &topo::Topology::description)
      .def_readonly("file", &topo::Topology::file)
      .def_readonly("host_count", &topo::Topology::host_count)
      .def_property_readonly("is_cluster", &topo::Topology::is_cluster)
      .def("nodes",
           [](const topo::Topology& t) {
             py::list out;
             for (const auto& node : t.nodes())
               out.append(node_dict(node));
             return out;
           })
      .def("links",
           [](const topo::Topology& t) {
             py::list out;
             for (const auto& link : t.links())
               out.append(link_dict(t, link));
             return out;
           })
      .def(
          "smi_view",
          [](const topo::Topology& t, const std::string& format, bool summary) {
            return app::smi_view(t, view_format(format), summary);
          },
          "format"_a, "summary"_a)
      .def(
          "check",
          [](const topo::Topology& t, const std::string& format) {
            return app::machine_check(t, view_format(format));
          },
          "format"_a);
  m.def(
      "load_machine",
      [](const std::string& name_or_path, int nodes) {
        py::gil_scoped_release release;
        return app::load_machine(name_or_path, nodes);
      },
      "name_or_path"_a, "nodes"_a);
}
