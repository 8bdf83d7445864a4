"""linksim.load_machine against `linksim topo show` and `topo check`."""

import json

import pytest

import linksim
from cli_support import run_cli


def test_show_prints_topo_show(golden, capsys):
    # scripts/update-golden.sh: linksim topo show rtx2080ti-2x; topo show aws-p4de-x2 --summary
    linksim.load_machine("rtx2080ti-2x").show()
    assert capsys.readouterr().out == (golden / "topo-show-rtx2080ti-2x.txt").read_text()
    linksim.load_machine("aws-p4de-x2").show(summary=True)
    assert capsys.readouterr().out == (golden / "topo-show-aws-p4de-x2.txt").read_text()


def test_check_is_topo_check_json(golden):
    # The golden file writes the data folder as $SRC (scripts/update-golden.sh).
    text = (golden / "topo-check-dgx-1v.json").read_text()
    expected = json.loads(text.replace("$SRC", linksim.data_dir()))
    assert linksim.load_machine("dgx-1v").check() == expected


@pytest.mark.parametrize("name,nodes", [("dgx-h100", None), ("aws-p5.48xlarge", 2), ("aws-p4de-x2", None)])
def test_same_as_cli(cli, name, nodes):
    extra = ["--nodes", str(nodes)] if nodes else []
    machine = linksim.load_machine(name, nodes=nodes)
    assert machine.smi(summary=True) == run_cli(cli, "topo", "show", name, "--summary", *extra)
    assert machine.smi(format="csv") == run_cli(cli, "topo", "show", name, "--format", "csv", *extra)
    check = json.loads(run_cli(cli, "topo", "check", name, "--format", "json", *extra))
    assert machine.check() == check


def test_gpus_and_links():
    # topologies/rtx2080ti-2x.json by hand: two RTX 2080 Ti behind one PCIe 3.0 x16 switch.
    m = linksim.load_machine("rtx2080ti-2x")
    assert m.name == "rtx2080ti-2x" and m.hosts == 1 and not m.is_cluster
    assert [g["id"] for g in m.gpus] == ["gpu0", "gpu1"]
    assert [g["ordinal"] for g in m.gpus] == [0, 1]
    assert {g["model"] for g in m.gpus} == {"RTX-2080-Ti"}
    gpu_links = [l for l in m.links if l["a"].startswith("gpu") or l["b"].startswith("gpu")]
    assert len(gpu_links) == 2
    for link in gpu_links:
        assert link["kind"] == "pcie" and link["generation"] == 3 and link["width"] == 16
        assert link["label"] == "PCIe 3.0 x16"
        assert link["bandwidth_Bps"] == 16e9  # PCIe 3.0 x16 per direction, as the file says


def test_dgx_a100_counts(golden):
    # 8 GPUs; `topo check` counts 8 GPUs too.
    m = linksim.load_machine("dgx-a100")
    assert len(m.gpus) == 8
    assert m.check()["gpus"] == 8
    assert "8 GPUs" in repr(m)


def test_cluster_scaled():
    m = linksim.load_machine("aws-p5.48xlarge", nodes=2)
    assert m.is_cluster and m.hosts == 2
    assert len(m.gpus) == 16
    assert sorted({g["host"] for g in m.gpus}) == [0, 1]


def test_shipped_list_is_topo_list(golden):
    import csv
    import io

    listed = list(csv.DictReader(io.StringIO((golden / "topo-list.csv").read_text())))
    assert [m["machine"] for m in linksim.machines()] == [row["machine"] for row in listed]
