"""linksim.run against `linksim run --format json`."""

import json

import pytest

import linksim
from cli_support import run_cli


@pytest.mark.parametrize(
    "scenario,topology,nodes",
    [
        ("default", None, None),
        ("llama3-8b-2xp4d-or-1xp5", None, 2),
        ("seed-gradient-sync", None, None),
        ("llama3-8b-serving", None, None),
        ("default", ["dgx-h100", "aws-p4d.24xlarge"], None),  # machines instead of its own
    ],
)
def test_same_report_as_cli(cli, scenario, topology, nodes):
    extra = [word for t in topology or [] for word in ("-t", t)]
    extra += ["--nodes", str(nodes)] if nodes else []
    expected = json.loads(run_cli(cli, "run", scenario, "--format", "json", *extra))
    assert list(linksim.run(scenario, topology=topology, nodes=nodes)) == expected


def test_step_adds_up():
    runs = linksim.run("default")
    # The shipped scenario's three machines, in its order (scenarios/default.json).
    assert [r["machine"] for r in runs] == ["dgx-a100", "rtx4090-8x", "dgx-h100"]
    for r in runs:
        assert r["status"] == "ok"
        parts = r["compute_s"] + r["exposed_comm_s"] + r["idle_s"]
        assert parts == pytest.approx(r["step_s"], rel=1e-12)
        assert r["comm_s"] == pytest.approx(r["exposed_comm_s"] + r["hidden_comm_s"], rel=1e-12)


def test_machine_list_and_paths(tmp_path):
    scenario = tmp_path / "mine.json"
    scenario.write_text(
        json.dumps(
            {
                "title": "t",
                "topologies": ["dgx-a100"],
                "model": "llama2-7b",
                "job": {"kind": "training", "global_batch": 16, "sequence_length": 2048},
                "plan": {"data": 8, "tensor": 1, "pipeline": 1, "zero_stage": 3,
                         "micro_batches": 2, "recompute": True},
            }
        )
    )
    # A pathlib.Path works where a str does; a list of machines replaces the scenario's.
    runs = linksim.run(scenario, topology=["dgx-h100", "dgx-a100"])
    assert [r["machine"] for r in runs] == ["dgx-h100", "dgx-a100"]
    assert [r["scenario"] for r in runs] == ["mine", "mine"]
