# -*- coding: utf-8 -*-
"""plugins/module_utils/nccl_check.py: thresholds from NVLink and the link rate, verdicts over
parse_nccl_tests (real published outputs and the stand-in's table), node and cluster reports."""

from __future__ import annotations

import pytest

from ansible_collections.scc.training.plugins.module_utils import nccl_check
from ansible_collections.scc.training.plugins.module_utils.nccl_tests import parse_nccl_tests
from tests.standins.nccl_tests_standin import table
from tests.unit.plugins.source_fixture import source_fixture

SCCGN6 = {
    "nvlink_links": 6,
    "nvlink_gbs_per_link": 25,
    "single_fraction": 0.7,
    "link_rate_gbps": 50,
    "multi_fraction": 0.7,
}


def test_sccgn6_thresholds():
    assert nccl_check.thresholds(SCCGN6) == {"single_node_gbps": 105.0, "multi_node_gbps": 4.38}


@pytest.mark.parametrize(
    "change, message",
    [
        ({"nvlink_links": 0}, "nvlink_links must be > 0"),
        ({"single_fraction": 1.5}, r"single_fraction must be in \(0, 1\]"),
        ({"link_rate_gbps": "fast"}, "link_rate_gbps must be a number"),
    ],
)
def test_bad_limits(change, message):
    with pytest.raises(ValueError, match=message):
        nccl_check.thresholds({**SCCGN6, **change})
    with pytest.raises(ValueError, match="missing key 'multi_fraction'"):
        nccl_check.thresholds({k: v for k, v in SCCGN6.items() if k != "multi_fraction"})


def test_published_8xv100_pre_2_13_run_passes_the_sccgn6_threshold():
    parsed = parse_nccl_tests(source_fixture("nccl", "nccl_tests_all_reduce_8xv100_pre_2_13_layout.txt"))
    verdict = nccl_check.run_verdict(parsed, 105.0)
    assert (verdict["ok"], verdict["wrong"], verdict["out_of_bounds"], verdict["problems"]) == (True, None, 0, [])
    assert verdict["busbw_gbps"] == parsed["rows"][-1]["busbw_gbs"] > 105
    assert verdict["curve"][0] == {"size_bytes": 1024, "busbw_gbps": 0.04}
    assert len(verdict["curve"]) == 18


def test_values_out_of_bounds_fail_the_run():
    parsed = parse_nccl_tests(source_fixture("nccl", "nccl_tests_all_gather_v100_out_of_bounds_37.txt"))
    verdict = nccl_check.run_verdict(parsed, 100.0)
    assert not verdict["ok"]
    assert verdict["problems"] == ["2 values out of bounds"]


def test_slow_and_wrong_stand_in_run():
    parsed = parse_nccl_tests(table(3.0, 16, 1024, 1 << 28, 2, wrong=4))
    verdict = nccl_check.run_verdict(parsed, 4.38)
    assert parsed["layout"] == "2.13+"
    assert verdict["wrong"] == 4 * 2 * len(parsed["rows"])
    assert (
        verdict["problems"][0].startswith("busbw 3.0 GB/s at 268435456 bytes")
        and "below the threshold 4.38 GB/s" in verdict["problems"][0]
    )
    assert verdict["problems"][1:] == ["%d wrong values (#wrong)" % verdict["wrong"], "4 values out of bounds"]


def test_a_run_without_rows_or_summary_fails():
    assert nccl_check.run_verdict(parse_nccl_tests(""), 1.0)["problems"] == [
        "no result rows (the run failed or printed no table)"
    ]
    cut = table(10.0, 8, 1024, 4096, 2).split("# Out of bounds")[0]
    assert nccl_check.run_verdict(parse_nccl_tests(cut), 0.1)["problems"] == [
        "no 'Out of bounds values' summary (the run did not finish)"
    ]
    with pytest.raises(ValueError, match="parse_nccl_tests' output"):
        nccl_check.run_verdict("text", 1.0)


def test_node_reports():
    good = nccl_check.run_verdict(parse_nccl_tests(table(120.0, 8, 1 << 20, 1 << 28, 2)), 105.0)
    slow = nccl_check.run_verdict(parse_nccl_tests(table(60.0, 8, 1 << 20, 1 << 28, 2)), 105.0)
    bisection = {"rounds": [], "bad_nodes": ["node3"], "unresolved": ["node4"]}
    green = nccl_check.node_report(good, bisection, "node1")
    assert (green["status"], green["ok"], green["problems"]) == ("green", True, [])
    assert green["single_node"] == {"busbw_gbps": good["busbw_gbps"], "threshold_gbps": 105.0, "ok": True, "wrong": 0}
    assert nccl_check.node_report(slow, None, "node2")["status"] == "red"
    named = nccl_check.node_report(good, bisection, "node3")
    assert (named["status"], named["ok"], named["problems"]) == (
        "red",
        False,
        ["slow in the cluster run: named by the bisection"],
    )
    assert nccl_check.node_report(good, bisection, "node4")["status"] == "amber"
    failed = nccl_check.node_report(None, None, "node5", failure="all_reduce_perf: not found")
    assert (failed["status"], failed["single_node"], failed["problems"]) == (
        "red",
        None,
        ["all_reduce_perf alone failed: all_reduce_perf: not found"],
    )


def test_cluster_report():
    multi = nccl_check.run_verdict(parse_nccl_tests(table(5.0, 16, 1 << 20, 1 << 21, 2)), 4.38)
    report = nccl_check.cluster_report(multi, ["node1", "node2"], None)
    assert report == {
        "ok": True,
        "threshold_gbps": 4.38,
        "multi_node": {
            "hosts": ["node1", "node2"],
            "busbw_gbps": multi["busbw_gbps"],
            "ok": True,
            "curve": multi["curve"],
            "problems": [],
        },
        "bisection": None,
    }


def test_cluster_verdict_is_the_cluster_run_from_two_nodes_and_ok_alone():
    ran = {"cluster": {"ok": False, "threshold_gbps": 9.0, "multi_node": {"busbw_gbps": 1.0}, "bisection": {}}}
    assert nccl_check.cluster_verdict(ran, 2, 9.0) is ran["cluster"]
    skipped = {"skipped": True, "changed": False}
    assert nccl_check.cluster_verdict(skipped, 1, 9.0) == {
        "ok": True,
        "threshold_gbps": 9.0,
        "multi_node": None,
        "bisection": None,
    }


BUILD = {
    "MPI_HOME": "/usr/lib/x86_64-linux-gnu/openmpi",
    "CUDA_HOME": "/usr/local/cuda",
    "NCCL_HOME": "/usr",
    "NVCC_GENCODE": "-gencode=arch=compute_70,code=sm_70",
}


def test_the_build_is_named_after_every_make_variable():
    """nccl-tests is built in a directory named after its make variables: any change builds anew, none keeps it."""
    build = nccl_check.tests_build(BUILD)
    assert build["make"] == [
        "MPI=1",
        "MPI_HOME=/usr/lib/x86_64-linux-gnu/openmpi",
        "CUDA_HOME=/usr/local/cuda",
        "NCCL_HOME=/usr",
        "NVCC_GENCODE=-gencode=arch=compute_70,code=sm_70",
    ]
    assert len(build["key"]) == 12 and int(build["key"], 16) >= 0
    assert nccl_check.tests_build(dict(reversed(list(BUILD.items())))) == build
    keys = {build["key"]}
    for variable, value in (
        ("MPI_HOME", "/usr/lib64/openmpi"),
        ("CUDA_HOME", "/usr/local/cuda-12.4"),
        ("NCCL_HOME", "/opt/nccl"),
        ("NVCC_GENCODE", "-gencode=arch=compute_70,code=sm_70 -gencode=arch=compute_90,code=sm_90"),
    ):
        keys.add(nccl_check.tests_build({**BUILD, variable: value})["key"])
    assert len(keys) == 5


@pytest.mark.parametrize(
    "variable, value, message",
    [
        ("NVCC_GENCODE", None, "nccl_check_nvcc_gencode"),
        ("CUDA_HOME", " ", "nccl_check_cuda_home"),
        ("MPI_HOME", "/opt/mpi\n", "nccl_check_mpi_home"),
    ],
)
def test_a_make_variable_without_a_value_is_refused_naming_its_variable(variable, value, message):
    with pytest.raises(ValueError, match=message):
        nccl_check.tests_build({**BUILD, variable: value})
    with pytest.raises(ValueError, match="nccl_check_nccl_home"):
        nccl_check.tests_build({k: v for k, v in BUILD.items() if k != "NCCL_HOME"})


def _rows(*points):
    return [
        {"size_bytes": size, "busbw_gbs": busbw, "wrong": 0, "in_place": {"busbw_gbs": busbw, "wrong": 0}}
        for size, busbw in points
    ]


def test_the_verdict_is_the_busbw_at_the_largest_size_not_the_best_over_sizes():
    # A peak at 64 MiB and a fall at 1 GiB (a link that degrades under load): judged at 1 GiB, failed.
    falling = {"layout": "2.13+", "rows": _rows((1 << 20, 20.0), (1 << 26, 130.0), (1 << 30, 90.0)), "out_of_bounds": 0}
    verdict = nccl_check.run_verdict(falling, 105.0)
    assert (verdict["ok"], verdict["busbw_gbps"]) == (False, 90.0)
    assert verdict["problems"] == ["busbw 90.0 GB/s at 1073741824 bytes below the threshold 105.00 GB/s"]
    rising = dict(falling, rows=_rows((1 << 20, 20.0), (1 << 26, 90.0), (1 << 30, 110.0)))
    assert nccl_check.run_verdict(rising, 105.0)["ok"] is True
    # At the threshold exactly: passed.
    assert nccl_check.run_verdict(dict(falling, rows=_rows((1 << 30, 105.0))), 105.0)["problems"] == []


def test_a_suspect_the_bisection_could_not_clear_is_amber_and_still_ok():
    good = nccl_check.run_verdict(parse_nccl_tests(table(120.0, 8, 1 << 20, 1 << 28, 2)), 105.0)
    slow = nccl_check.run_verdict(parse_nccl_tests(table(60.0, 8, 1 << 20, 1 << 28, 2)), 105.0)
    bisection = {"bad_nodes": ["node3"], "unresolved": ["node4"]}
    amber = nccl_check.node_report(good, bisection, "node4")
    assert (amber["status"], amber["ok"]) == ("amber", True)
    assert amber["problems"] == ["slow in the cluster run: a suspect the bisection could not clear"]
    # Slow alone and a suspect: red, both said.
    both = nccl_check.node_report(slow, bisection, "node4")
    assert (both["status"], both["ok"]) == ("red", False) and len(both["problems"]) == 2
    assert both["problems"][0].startswith("alone: busbw ") and "below the threshold 105.00 GB/s" in both["problems"][0]
    # No host named: the bisection's names are not this node's.
    assert nccl_check.node_report(good, bisection, None)["status"] == "green"
    assert nccl_check.node_report(good, {"bad_nodes": None, "unresolved": None}, "node3")["problems"] == []
    assert nccl_check.cluster_verdict({"cluster": {"ok": True}}, "3", 9.0) == {"ok": True}


@pytest.mark.parametrize(
    "variable, good, bad",
    [
        ("nccl_check_gpus", [None, "", " ", 1, 8], [0, -1]),
        ("nccl_check_step_factor", [2, 3], [1, 0]),
        ("nccl_check_timeout_s", [1, 900], [0, -5]),
        ("nccl_check_nvlink_links", [None, "", 0, 18], [-1]),
        ("nccl_check_link_rate_gbps", [None, "", 0.5, 100], [0, -1]),
    ],
)
def test_each_rules_boundary_is_refused_by_name_and_its_edge_kept(variable, good, bad):
    from tests.unit.plugins.module_utils.test_input_problems import NCCL_CHECK

    assert nccl_check.nccl_check_input_problems(NCCL_CHECK) == []
    for value in good:
        assert nccl_check.nccl_check_input_problems(dict(NCCL_CHECK, **{variable: value})) == [], value
    for value in bad:
        problems = nccl_check.nccl_check_input_problems(dict(NCCL_CHECK, **{variable: value}))
        assert len(problems) == 1 and problems[0].startswith(variable), (value, problems)
    # The problems of every kind together: the group's, a rule's and the environment's, each once.
    mixed = dict(NCCL_CHECK, group_hosts=[], nccl_check_step_factor=1, nccl_check_env=["NCCL_ALGO=Ring"])
    assert len(nccl_check.nccl_check_input_problems(mixed)) == 3


def test_thresholds_are_to_a_hundredth_and_a_fraction_of_one_is_allowed():
    limits = {"intra_node_gbs": 31.5, "single_fraction": 0.35, "link_rate_gbps": 100, "multi_fraction": 1}
    assert nccl_check.thresholds(dict(limits, nvlink_links=0)) == {
        "single_node_gbps": 11.02,
        "multi_node_gbps": 12.5,
    }  # 11.025 in binary
    with pytest.raises(ValueError, match=r"^multi_fraction must be in \(0, 1\], got 1\.01$"):
        nccl_check.thresholds(dict(limits, multi_fraction=1.01))
    with pytest.raises(ValueError, match=r"^link_rate_gbps must be > 0, got -1$"):
        nccl_check.thresholds(dict(limits, link_rate_gbps=-1))
