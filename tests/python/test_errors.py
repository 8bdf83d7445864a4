"""Bad input: linksim.InputError with the C++ error's file, location and message, as the CLI
prints them; wrong Python types: TypeError."""

import json
import os
import subprocess
import sys

import pytest

import linksim
from cli_support import run_cli


def cli_error(cli, *args):
    """The CLI's error line for bad input: "linksim: error: <what>", exit code 2."""
    done = subprocess.run([cli, *args], capture_output=True, text=True, check=False)
    assert done.returncode == 2, done.stderr
    prefix = "linksim: error: "
    line = done.stderr.strip().splitlines()[-1]
    assert line.startswith(prefix)
    return line[len(prefix):]


@pytest.fixture
def bad_machine(tmp_path):
    path = tmp_path / "bad-machine.json"
    path.write_text(json.dumps({"title": "x", "nodes": [{"id": "gpu0", "kind": "gpu", "model": "NOPE"}], "links": []}))
    return path


def test_machine_file_error_fields(bad_machine):
    with pytest.raises(linksim.InputError) as caught:
        linksim.load_machine(bad_machine)
    e = caught.value
    assert e.file == str(bad_machine)
    assert e.location.startswith("/nodes/0")
    assert e.message
    assert str(e) == f"{e.file}: at {e.location}: {e.message}"  # sim/core/error.cpp's layout
    assert isinstance(e, ValueError)


def test_errors_read_as_the_cli_prints_them(cli, bad_machine, tmp_path):
    with pytest.raises(linksim.InputError) as caught:
        linksim.load_machine(bad_machine)
    assert str(caught.value) == cli_error(cli, "topo", "show", str(bad_machine))

    with pytest.raises(linksim.InputError) as caught:
        linksim.nccl_tests("all_reduce_perf", "dgx-a100", ["-b", "x"])
    assert (caught.value.file, caught.value.location) == ("", "nccl-tests -b")
    assert str(caught.value) == cli_error(cli, "nccl-tests", "--topology", "dgx-a100",
                                          "all_reduce_perf", "-b", "x")

    scenario = tmp_path / "bad-scenario.json"
    scenario.write_text(json.dumps({"title": "t", "topologies": ["dgx-a100"], "model": "llama2-7b",
                                    "job": {"kind": "training", "global_batch": "many"}}))
    with pytest.raises(linksim.InputError) as caught:
        linksim.run(scenario)
    assert caught.value.file == str(scenario)
    assert caught.value.location.startswith("/job")
    assert str(caught.value) == cli_error(cli, "run", str(scenario))

    # The only machine too small for the plan fails the run, naming the scenario's /plan.
    with pytest.raises(linksim.InputError) as caught:
        linksim.run("default", topology="rtx4090-2x")
    assert caught.value.location == "/plan"
    assert str(caught.value) == cli_error(cli, "run", "default", "-t", "rtx4090-2x")


def test_unknown_names():
    with pytest.raises(linksim.InputError) as caught:
        linksim.nccl_tests("foo_perf", "dgx-a100", [])
    assert caught.value.location == "argument BINARY"
    with pytest.raises(linksim.InputError) as caught:
        linksim.run("no-such-scenario")
    assert caught.value.file == "no-such-scenario"
    with pytest.raises(linksim.InputError):
        linksim.nccl_tests("all_reduce_perf", "dgx-a100", ["-g", "16"])  # 16 ranks on 8 GPUs


def test_counts_out_of_range():
    with pytest.raises(linksim.InputError) as caught:
        linksim.load_machine("dgx-a100", nodes=0)
    assert caught.value.location == "--nodes"
    with pytest.raises(linksim.InputError):
        linksim.nccl_tests("all_reduce_perf", "dgx-a100", [], np=0)
    with pytest.raises(linksim.InputError):
        linksim.run("default", threads=0)


@pytest.mark.parametrize(
    "call,words",
    [
        (lambda: linksim.nccl_tests("all_reduce_perf", "dgx-a100", "-b 8 -e 1M"), "list of str"),
        (lambda: linksim.nccl_tests("all_reduce_perf", "dgx-a100", ["-g", 8]), "args[1]"),
        (lambda: linksim.nccl_tests("all_reduce_perf", 8, []), "topology"),
        (lambda: linksim.nccl_tests(None, "dgx-a100", []), "binary"),
        (lambda: linksim.nccl_tests("all_reduce_perf", "dgx-a100", [], nodes="2"), "nodes"),
        (lambda: linksim.nccl_tests("all_reduce_perf", "dgx-a100", [], np=2.0), "np"),
        (lambda: linksim.nccl_tests("all_reduce_perf", "dgx-a100", [], np=True), "np"),
        (lambda: linksim.nccl_tests("all_reduce_perf", "dgx-a100", [], env=["NCCL_ALGO=Ring"]), "env"),
        (lambda: linksim.nccl_tests("all_reduce_perf", "dgx-a100", [], env={"NCCL_ALGO": 1}), "env"),
        (lambda: linksim.run(42), "scenario"),
        (lambda: linksim.run("default", topology=3), "topology"),
        (lambda: linksim.run("default", topology=["dgx-a100", None]), "topology[1]"),
        (lambda: linksim.load_machine(None), "name_or_path"),
        (lambda: linksim.load_machine("dgx-a100").show(summary="yes"), "summary"),
    ],
)
def test_wrong_types(call, words):
    with pytest.raises(TypeError) as caught:
        call()
    assert words in str(caught.value)


def test_import_from_any_folder(tmp_path):
    """The installed package finds its shipped data wherever Python runs."""
    env = {k: v for k, v in os.environ.items() if k != "LINKSIM_DATA"}
    code = (
        "import linksim, os; m = linksim.load_machine('dgx-h100'); print(len(m.gpus));"
        "print(os.path.isdir(os.path.join(linksim.data_dir(), 'scenarios')))"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                          capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["8", "True"]
