"""linksim from Python: the simulator behind the ``linksim`` command (docs/python.md).

    import linksim
    rows = linksim.nccl_tests("all_reduce_perf", topology="dgx-a100",
                              args=["-b", "8", "-e", "8G", "-f", "2", "-g", "8"])
    runs = linksim.run("default")
    machine = linksim.load_machine("dgx-h100"); machine.show()

Every figure comes from the C++ library the CLI runs (sim/app); this package checks argument
types and turns results into lists of dicts. Bad input raises ``linksim.InputError`` (with
``file``, ``location`` and ``message``); a wrong argument type raises ``TypeError``.

Shipped machines, models and scenarios are installed inside the package. The C++ library finds
its data through the ``LINKSIM_DATA`` environment variable; on import this package sets it to
that folder unless it is already set (so a user's own data folder wins).
"""

import json as _json
import os as _os
from collections.abc import Mapping as _Mapping

from ._errors import InputError
from ._records import NcclTestsResult, Records

_DATA_DIR = _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), "data")
if not _os.environ.get("LINKSIM_DATA") and _os.path.isdir(_os.path.join(_DATA_DIR, "topologies")):
    _os.environ["LINKSIM_DATA"] = _DATA_DIR

from . import _core  # noqa: E402  (after LINKSIM_DATA is set)

__version__ = _core.__version__
__all__ = [
    "InputError",
    "Machine",
    "NcclTestsResult",
    "Records",
    "data_dir",
    "load_machine",
    "machines",
    "nccl_tests",
    "run",
]


def data_dir():
    """The folder the library reads shipped machines, models and scenarios from."""
    return _os.environ.get("LINKSIM_DATA", _DATA_DIR)


# The CLI's bounds: --nodes (topo::kMaxClusterHosts), --jobs (whole_number_range(1, 1024)),
# --np (an int).
_MAX_NODES = 65536
_MAX_THREADS = 1024
_MAX_INT = 2**31 - 1

# --- argument checks: TypeError naming the parameter, what it takes and what it got ---------


def _type_name(value):
    return type(value).__name__


def _path_arg(name, value):
    """A file path or a shipped name: str or os.PathLike."""
    if isinstance(value, str):
        return value
    if isinstance(value, _os.PathLike):
        path = _os.fspath(value)
        if isinstance(path, str):
            return path
    raise TypeError(
        f"{name} must be a str (a file path or a shipped name) or os.PathLike, "
        f"not {_type_name(value)}"
    )


def _str_arg(name, value):
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, not {_type_name(value)}")
    return value


def _count_arg(name, value, default, low, high, flag):
    """None (`default`, the CLI's "not given") or an int from `low` to `high`, as the CLI's
    `flag` takes it. bool is refused (True is not a count); a value out of range is bad input
    (InputError located at the flag, as the CLI words it)."""
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int or None, not {_type_name(value)}")
    if not low <= value <= high:
        message = f"expected a whole number from {low} to {high}, got {value}"
        raise InputError(f"{flag}: {message}", "", flag, message)
    return value


def _str_list_arg(name, value, example):
    """A list or tuple of str. A bare str is refused: "-b 8" is not ["-b", "8"]."""
    if isinstance(value, (str, bytes)):
        raise TypeError(
            f"{name} must be a list of str, one word each (e.g. {example}), not a single "
            f"{_type_name(value)}"
        )
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"{name} must be a list of str (e.g. {example}), not {_type_name(value)}")
    for i, item in enumerate(value):
        if not isinstance(item, str):
            raise TypeError(
                f"{name}[{i}] must be a str, not {_type_name(item)} ({item!r}); "
                f"write numbers as text, e.g. {example}"
            )
    return list(value)


def _machines_arg(name, value):
    """None, one machine, or a list of machines (str or os.PathLike each)."""
    if value is None:
        return []
    if isinstance(value, (str, _os.PathLike)):
        return [_path_arg(name, value)]
    if isinstance(value, (list, tuple)):
        return [_path_arg(f"{name}[{i}]", v) for i, v in enumerate(value)]
    raise TypeError(
        f"{name} must be a machine (str or os.PathLike), a list of them, or None, "
        f"not {_type_name(value)}"
    )


def _env_arg(value):
    """The environment the run sees as NAME=VALUE entries; None: this process's (as the CLI)."""
    if value is None:
        value = _os.environ
    elif not isinstance(value, _Mapping):
        raise TypeError(
            f"env must be a mapping of str to str (e.g. {{'NCCL_ALGO': 'Ring'}}) or None, "
            f"not {_type_name(value)}"
        )
    entries = []
    for key, item in value.items():
        if not isinstance(key, str) or not isinstance(item, str):
            raise TypeError(
                f"env must map str to str; {key!r}: {item!r} is "
                f"{_type_name(key)}: {_type_name(item)}"
            )
        entries.append(f"{key}={item}")
    return entries


# --- the API ---------------------------------------------------------------------------------


def nccl_tests(
    binary,
    topology,
    args=(),
    nodes=None,
    np=None,
    env=None,
    *,
    algo="",
    proto="",
    nccl_version="",
    threads=None,
):
    """What an nccl-tests binary prints on a simulated machine, as rows.

    The same as ``linksim nccl-tests --topology TOPOLOGY [--nodes N] [--np NP] BINARY ARGS``.

    binary: "all_reduce_perf", "all_gather_perf", ... (the binary's file name).
    topology: a machine or cluster file, or a shipped name ("dgx-a100").
    args: the binary's own arguments, one word each: ["-b", "8", "-e", "8G", "-f", "2", "-g", "8"].
    nodes: run on this many nodes of the machine (None: as the file says).
    np: processes, as mpirun -np gives them (None: 1); the ranks are np x -t x -g.
    env: the environment the run sees (NCCL_ALGO, NCCL_PROTO, NCCL_NVLS_ENABLE,
        NCCL_TESTS_MIN_BW are read); None: this process's environment, as the CLI reads its own.
    algo, proto, nccl_version: the CLI's --algo, --proto and --nccl-version ("" for none).
    threads: sizes simulated at once (None: one per core); the rows are the same for any count.

    Returns an NcclTestsResult: a list of dicts, one per size, with the printed out-of-place
    columns ``size``, ``time_us``, ``algbw`` and ``busbw`` (GB/s), and more (see its doc).
    A -J FILE among ``args`` is written as the CLI writes it.
    """
    binary = _str_arg("binary", binary)
    topology = _path_arg("topology", topology)
    args = _str_list_arg("args", args, "['-b', '8', '-e', '128M', '-g', '8']")
    nodes = _count_arg("nodes", nodes, 0, 1, _MAX_NODES, "--nodes")
    np = _count_arg("np", np, 1, 1, _MAX_INT, "--np")
    threads = _count_arg("threads", threads, 0, 1, _MAX_THREADS, "--jobs")
    environment = _env_arg(env)
    algo = _str_arg("algo", algo)
    proto = _str_arg("proto", proto)
    nccl_version = _str_arg("nccl_version", nccl_version)
    r = _core.nccl_tests(
        binary, args, topology, nodes, np, environment, algo, proto, nccl_version, threads
    )
    return NcclTestsResult(
        r["rows"],
        printout=r["printout"],
        notes=r["notes"],
        json=r["json"],
        json_path=r.get("json_path", ""),
        machine=r["machine"],
        ranks=r["ranks"],
    )


def run(scenario, topology=None, *, nodes=None, threads=None):
    """A scenario simulated on each machine it names, as ``linksim run SCENARIO --format json``.

    scenario: a scenario file or a shipped name ("default").
    topology: a machine, or a list of machines, to run on instead of the scenario's own.
    nodes: scale every machine to this many nodes (None: as each file says).
    threads: machines simulated at once (None: one per core); the results are the same.

    Returns Records: one dict per machine, the CLI's JSON report parsed. A training or
    inference job's dict has ``step_s``, ``compute_s``, ``exposed_comm_s`` and ``idle_s``
    (which add up to ``step_s``), ``comm_s``, ``tokens_per_s``, ``by_collective``, ...; a
    machine too small for the job has ``status`` != "ok" and says why.
    """
    scenario = _path_arg("scenario", scenario)
    machines = _machines_arg("topology", topology)
    nodes = _count_arg("nodes", nodes, 0, 1, _MAX_NODES, "--nodes")
    threads = _count_arg("threads", threads, 0, 1, _MAX_THREADS, "--jobs")
    return Records(_json.loads(_core.run_json(scenario, machines, nodes, threads)))


def machines():
    """The shipped machines, one dict each, as ``linksim topo list --format json``."""
    return Records(_json.loads(_core.shipped_machines("json")))


class Machine:
    """A machine or cluster, loaded as every linksim command loads it.

    Attributes: ``name``, ``title``, ``description``, ``file``, ``hosts`` (1 for a machine),
    ``is_cluster``; ``gpus``, ``links`` and ``nodes`` as Records (lists of dicts):

    * a node: ``id``, ``kind`` (gpu, nvswitch, pcie_switch, cpu, nic, net_switch),
      ``ordinal``, ``model``, ``host``; a GPU also ``architecture``, ``memory_bytes``,
      ``hbm_bandwidth_Bps``, ``sm_count``;
    * a link (full duplex; figures per direction): ``a``, ``b`` (node ids), ``kind``,
      ``label`` ("NVLink 3 x12"), ``generation``, ``lanes``, ``width``, ``bandwidth_Bps``,
      ``latency_s``.
    """

    def __init__(self, topology):
        if not isinstance(topology, _core.Topology):
            raise TypeError("use linksim.load_machine(name_or_path) to make a Machine")
        self._topology = topology
        self.name = topology.name
        self.title = topology.title
        self.description = topology.description
        self.file = topology.file
        self.hosts = topology.host_count
        self.is_cluster = topology.is_cluster
        self.nodes = Records(topology.nodes())
        self.gpus = Records(n for n in self.nodes if n["kind"] == "gpu")
        self.links = Records(topology.links())

    def smi(self, summary=False, format="table"):
        """The text ``linksim topo show`` prints (nvidia-smi topo -m's layout), as a str.

        summary: linksim's summary after the legend (table only), as --summary.
        format: "table", "json" or "csv", as --format.
        """
        if not isinstance(summary, bool):
            raise TypeError(f"summary must be a bool, not {_type_name(summary)}")
        return self._topology.smi_view(_str_arg("format", format), summary)

    def show(self, summary=False, format="table"):
        """Print what ``linksim topo show`` prints for this machine."""
        print(self.smi(summary=summary, format=format), end="")

    def check(self):
        """What ``linksim topo check --format json`` says of the machine, as a dict."""
        return _json.loads(self._topology.check("json"))

    def explain(self):
        """What ``linksim topo check`` prints: what the machine is and whether it holds together."""
        return self._topology.check("table")

    def __repr__(self):
        return f"<linksim.Machine {self.name!r}: {len(self.gpus)} GPUs, {len(self.links)} links>"


def load_machine(name_or_path, nodes=None):
    """A machine or cluster file, or a shipped machine's name, as a Machine.

    nodes: scale it to this many nodes joined by its NICs' fabric (None: as the file says),
    as the CLI's --nodes.
    """
    name_or_path = _path_arg("name_or_path", name_or_path)
    nodes = _count_arg("nodes", nodes, 0, 1, _MAX_NODES, "--nodes")
    return Machine(_core.load_machine(name_or_path, nodes))
