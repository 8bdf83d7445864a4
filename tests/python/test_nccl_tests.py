"""linksim.nccl_tests against the CLI: the same printout, and rows that print as its columns."""

import json
import os

import pytest

import linksim
from cli_support import nccl_tests_float, run_cli, table_rows

# scripts/update-golden.sh: linksim nccl-tests --topology rtx2080ti-2x all_reduce_perf
#   -b 8 -e 1M -f 4 -g 2 > nccl-tests-rtx2080ti-2x.txt
GOLDEN_ARGS = ["-b", "8", "-e", "1M", "-f", "4", "-g", "2"]


def assert_rows_print_as(rows, printout):
    """Each row's numbers, in nccl-tests' formats, are the printed out-of-place and in-place
    columns: size, count, type, redop, root, time, algbw, busbw, #wrong, then in place."""
    printed = table_rows(printout)
    assert len(rows) == len(printed) > 0
    for row, cells in zip(rows, printed):
        assert str(row["size"]) == cells[0]
        assert str(row["count"]) == cells[1]
        assert [row["type"], row["redop"], str(row["root"])] == cells[2:5]
        assert nccl_tests_float(row["time_us"], 7).strip() == cells[5]
        assert nccl_tests_float(row["algbw"], 6).strip() == cells[6]
        assert nccl_tests_float(row["busbw"], 6).strip() == cells[7]
        assert nccl_tests_float(row["in_place_time_us"], 7).strip() == cells[9]
        assert nccl_tests_float(row["in_place_algbw"], 6).strip() == cells[10]
        assert nccl_tests_float(row["in_place_busbw"], 6).strip() == cells[11]


def test_golden_printout_and_rows(golden):
    expected = (golden / "nccl-tests-rtx2080ti-2x.txt").read_text()
    rows = linksim.nccl_tests("all_reduce_perf", topology="rtx2080ti-2x", args=GOLDEN_ARGS, env={})
    assert rows.printout == expected
    assert_rows_print_as(rows, expected)
    # The sizes -b 8 -e 1M -f 4 asks for, by hand: 8 x 4^k up to 1 MiB.
    assert [r["size"] for r in rows] == [8 * 4**k for k in range(10) if 8 * 4**k <= 1 << 20]
    assert rows.machine == "rtx2080ti-2x" and rows.ranks == 2
    for r in rows:
        # nccl-tests' definitions: algbw = size / time; all-reduce busbw = algbw x 2(n-1)/n.
        assert r["algbw"] == pytest.approx(r["size"] / (r["time_us"] * 1e-6) / 1e9, rel=1e-12)
        assert r["busbw"] == pytest.approx(r["algbw"] * 2 * (2 - 1) / 2, rel=1e-12)


@pytest.mark.parametrize(
    "binary,topology,args,nodes,np,env",
    [
        ("all_gather_perf", "dgx-a100", ["-b", "1K", "-e", "64M", "-f", "8", "-g", "8"], None, None, {}),
        ("all_reduce_perf", "dgx-h100", ["-b", "8", "-e", "8G", "-f", "16", "-g", "8"], None, None,
         {"NCCL_ALGO": "Ring"}),
        ("alltoall_perf", "aws-p4d.24xlarge", ["-b", "1K", "-e", "16M", "-f", "16", "-g", "1"], 2, 16, {}),
        ("broadcast_perf", "rtx4090-8x", ["-b", "4K", "-e", "4M", "-f", "32", "-g", "4", "-C", "1"],
         None, None, {}),
    ],
)
def test_same_as_cli(cli, binary, topology, args, nodes, np, env):
    command = ["nccl-tests", "--topology", topology]
    if nodes is not None:
        command += ["--nodes", str(nodes)]
    if np is not None:
        command += ["--np", str(np)]
    expected = run_cli(cli, *command, binary, *args, env=env)
    rows = linksim.nccl_tests(binary, topology=topology, args=args, nodes=nodes, np=np, env=env)
    assert rows.printout == expected
    assert_rows_print_as(rows, expected)


def test_environment_is_read_as_the_cli_reads_it(cli, monkeypatch):
    """env=None reads this process's environment, as the CLI reads its own."""
    args = ["-b", "64M", "-e", "64M", "-g", "8"]
    monkeypatch.setenv("NCCL_ALGO", "Tree")
    expected = run_cli(cli, "nccl-tests", "--topology", "dgx-a100", "all_reduce_perf", *args,
                       env={"NCCL_ALGO": "Tree"})
    assert linksim.nccl_tests("all_reduce_perf", "dgx-a100", args).printout == expected
    ring = linksim.nccl_tests("all_reduce_perf", "dgx-a100", args, env={"NCCL_ALGO": "Ring"})
    assert ring.printout != expected


def test_json_file_as_the_cli_writes_it(cli, tmp_path):
    args = ["-b", "1M", "-e", "4M", "-f", "2", "-g", "2"]
    ours = tmp_path / "ours.json"
    theirs = tmp_path / "theirs.json"
    rows = linksim.nccl_tests("all_reduce_perf", "rtx2080ti-2x", args + ["-J", str(ours)], env={})
    run_cli(cli, "nccl-tests", "--topology", "rtx2080ti-2x", "all_reduce_perf", *args,
            "-J", str(theirs))
    assert rows.json_path == str(ours)
    assert ours.read_text() == rows.json
    # The same file but for the name it was written under, which "args" echoes.
    expected = json.loads(theirs.read_text())
    assert expected["args"][-1] == str(theirs)
    expected["args"][-1] = str(ours)
    assert json.loads(ours.read_text()) == expected
    assert f"# Writing JSON output to {ours}" in rows.printout
    # Never over an existing file: nccl-tests moves on to FILE.0.
    again = linksim.nccl_tests("all_reduce_perf", "rtx2080ti-2x", args + ["-J", str(ours)], env={})
    assert again.json_path == str(ours) + ".0"
    assert os.path.exists(str(ours) + ".0")


def test_help_lists_the_options():
    result = linksim.nccl_tests("all_reduce_perf", "dgx-a100", ["--help"])
    assert list(result) == []
    assert "-b" in result.printout
