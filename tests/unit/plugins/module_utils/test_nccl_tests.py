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
    assert (r["layout"], r["avg_busbw_gbs"], r["out_of_bounds"], r["passed"]) == ("2.13+", 70.742, 0, True)


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
    assert (r["layout"], r["avg_busbw_gbs"], r["out_of_bounds"], r["passed"]) == ("pre-2.13", 128.942, 2, False)


def test_pre_2_13_all_reduce_layout_redop_without_root_and_an_error_column():
    """nccl-tests before v2.13.0: 12 fields per row (redop, no root), the error printed %5.0le."""
    r = parse("nccl_tests_all_reduce_8xv100_pre_2_13_layout.txt")
    rows = r["rows"]
    assert r["layout"] == "pre-2.13"
    assert [row["size_bytes"] for row in rows] == [1024 * 2**k for k in range(18)]
    assert {(row["type"], row["redop"], row["root"]) for row in rows} == {("float", "sum", None)}
    assert rows[-1] == {
        "size_bytes": 134217728,
        "count": 33554432,
        "type": "float",
        "redop": "sum",
        "root": None,
        "time_us": 1962.4,
        "algbw_gbs": 68.39,
        "busbw_gbs": 119.69,
        "wrong": 2e-07,
        "in_place": {"time_us": 1968.3, "algbw_gbs": 68.19, "busbw_gbs": 119.33, "wrong": 2e-07},
    }
    # The error is a float (max delta), never a count, and 0e+00 reads as 0.
    assert rows[0]["wrong"] == 1e-07 and isinstance(rows[0]["wrong"], float)
    # all_reduce on 8 ranks: busbw = algbw * 2(n-1)/n = 1.75 algbw (nccl-tests doc/PERFORMANCE.md), within rounding.
    for row in rows:
        if row["algbw_gbs"] >= 1:
            assert abs(row["busbw_gbs"] - 1.75 * row["algbw_gbs"]) <= 0.02, row
    assert (r["avg_busbw_gbs"], r["out_of_bounds"], r["passed"]) == (40.3402, 0, True)


def test_rows_without_their_header_fall_back_on_the_field_count():
    # pre-2.13 all_reduce (redop), pre-2.13 broadcast (root, a number), current layout (both).
    r = parse_nccl_tests(
        "        1024           256   float     sum    45.01    0.02    0.04  0e+00    45.15    0.02    0.04  0e+00\n"
        "        1024           256   float       0    30.10    0.03    0.03  0e+00    30.20    0.03    0.03  0e+00\n"
        "        1024           256   float     sum      -1    45.01    0.02    0.04      0    45.15    0.02    0.04      0\n"
    )
    assert [(row["redop"], row["root"], row["wrong"]) for row in r["rows"]] == [
        ("sum", None, 0.0),
        (None, 0, 0.0),
        ("sum", -1, 0),
    ]
    assert r["layout"] is None


def test_not_available_wrong_and_zero_average():
    r = parse("nccl_tests_alltoall_rtx5090_287.txt")
    (row,) = r["rows"]
    assert row["redop"] == "none"
    assert row["wrong"] == 0
    assert row["in_place"]["wrong"] is None
    assert row["in_place"]["algbw_gbs"] == 43046.10
    assert (r["avg_busbw_gbs"], r["passed"]) == (0.0, True)


def test_unfinished_run_has_no_summary():
    r = parse_nccl_tests(
        "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
    )
    assert r == {"rows": [], "layout": "2.13+", "avg_busbw_gbs": None, "out_of_bounds": None, "passed": None}
