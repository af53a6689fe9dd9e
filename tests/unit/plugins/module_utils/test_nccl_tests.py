# -*- coding: utf-8 -*-
"""plugins/module_utils/nccl_tests.py on real nccl-tests outputs (tests/fixtures/nccl)."""

from __future__ import annotations

from ansible_collections.scc.training.plugins.module_utils.nccl_tests import parse_nccl_tests
from tests.unit.plugins.source_fixture import source_fixture


def parse(name):
    return parse_nccl_tests(source_fixture("nccl", name))


def test_all_reduce_two_nodes_sweep():
    r = parse("nccl_tests_all_reduce_h100_2nodes.txt")
    rows = r["rows"]
    assert len(rows) == 31
    assert [row["size_bytes"] for row in rows[:3]] == [8, 16, 32]
    assert rows[-1] == {
        "size_bytes": 8589934592,
        "count": 2147483648,
        "type": "float",
        "redop": "sum",
        "root": -1,
        "time_us": 47535.0,
        "algbw_gbs": 180.71,
        "busbw_gbs": 338.82,
        "wrong": 0,
        "in_place": {"time_us": 47743.0, "algbw_gbs": 179.92, "busbw_gbs": 337.35, "wrong": 0},
    }
    assert (r["avg_busbw_gbs"], r["out_of_bounds"], r["passed"]) == (70.742, 0, True)


def test_old_layout_with_values_out_of_bounds():
    r = parse("nccl_tests_all_gather_v100_out_of_bounds_37.txt")
    (row,) = r["rows"]
    assert (row["size_bytes"], row["count"], row["type"], row["redop"], row["root"]) == (
        4294967296,
        134217728,
        "float",
        None,
        None,
    )
    assert (row["busbw_gbs"], row["wrong"], row["in_place"]["busbw_gbs"]) == (129.05, 1.0, 128.84)
    assert (r["avg_busbw_gbs"], r["out_of_bounds"], r["passed"]) == (128.942, 2, False)


def test_not_available_wrong_and_zero_average():
    r = parse("nccl_tests_alltoall_rtx5090_287.txt")
    (row,) = r["rows"]
    assert row["redop"] == "none"
    assert row["wrong"] == 0
    assert row["in_place"]["wrong"] is None
    assert row["in_place"]["algbw_gbs"] == 43046.10
    assert (r["avg_busbw_gbs"], r["passed"]) == (0.0, True)


def test_unfinished_run_has_no_summary():
    r = parse_nccl_tests("#       size         count      type   redop    root\n")
    assert r == {"rows": [], "avg_busbw_gbs": None, "out_of_bounds": None, "passed": None}
