"""Results as pandas DataFrames, where pandas is installed."""

import pytest

import linksim

pd = pytest.importorskip("pandas")


def test_nccl_tests_frame():
    rows = linksim.nccl_tests("all_reduce_perf", "rtx2080ti-2x", ["-b", "8", "-e", "1M", "-f", "4", "-g", "2"], env={})
    frame = rows.to_pandas()
    assert len(frame) == len(rows)
    assert {"size", "time_us", "algbw", "busbw"} <= set(frame.columns)
    assert frame["busbw"].tolist() == [r["busbw"] for r in rows]
    assert frame["size"].tolist() == [r["size"] for r in rows]


def test_run_frame():
    runs = linksim.run("default")
    frame = runs.to_pandas()
    assert frame["machine"].tolist() == [r["machine"] for r in runs]
    assert frame["step_s"].tolist() == [r["step_s"] for r in runs]
    # Nested figures become dotted columns.
    assert frame["compute_by_operation.matmul"].tolist() == [
        r["compute_by_operation"]["matmul"] for r in runs
    ]


def test_machine_frames():
    m = linksim.load_machine("dgx-a100")
    assert len(m.gpus.to_pandas()) == 8
    assert set(m.links.to_pandas().columns) >= {"a", "b", "kind", "bandwidth_Bps"}
