# -*- coding: utf-8 -*-
"""Unit tests for plugins/module_utils/health.py and its filter scc.training.cluster_health."""

from __future__ import annotations

import importlib.util
import pathlib

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.scc.training.plugins.module_utils import health, mpi

_PLUGIN = pathlib.Path(__file__).resolve().parents[4] / "plugins" / "filter" / "health.py"
_spec = importlib.util.spec_from_file_location("scc_training_filter_health", _PLUGIN)
health_filter = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(health_filter)

NODES = ["node1", "node2", "node3", "node4"]
GREEN = {"status": "green", "ok": True, "problems": []}
XID79 = {
    "status": "red",
    "ok": False,
    "problems": ["GPU 3 xid: Xid 79 at 00000000:3B:00.0 (remedy: reboot)"],
    "verdicts": [
        {"gpu": 3, "check": "xid", "ok": False, "detail": "Xid 79", "remedy": "reboot"},
        {"gpu": 2, "check": "throttle", "ok": False, "detail": "hw_slowdown", "remedy": "reset_gpu"},
        {"gpu": 1, "check": "ecc_mode", "ok": True, "detail": "Enabled", "remedy": "isolate"},
    ],
}
AMBER = {"status": "amber", "ok": True, "problems": ["GPU 0 xid: Xid 13 (remedy: restart_app)"], "verdicts": []}
SLOW = {"status": "red", "ok": False, "problems": ["bisection: slow in every group it was in"]}


def reports(**by_node):
    return {node: by_node.get(node, {"gpu_health": GREEN, "nccl_check": GREEN}) for node in NODES}


def test_a_healthy_cluster_keeps_every_node_in_order():
    verdict = health.judge(NODES, reports(), NODES)
    assert verdict["healthy"] == NODES and verdict["unhealthy"] == {}
    assert verdict["judged_by"] == ["gpu_health", "nccl_check"]
    assert [c["status"] for c in verdict["cards"]] == ["green"] * 4
    assert verdict["summary"] == ["4 of 4 node(s) healthy (judged by gpu_health, nccl_check)"]


def test_red_from_any_gate_and_a_dropped_node_are_unhealthy_amber_is_not():
    verdict = health.judge(
        NODES,
        reports(
            node2={"gpu_health": AMBER, "nccl_check": GREEN},
            node3={"gpu_health": XID79, "nccl_check": SLOW},
        ),
        ["node1", "node2", "node3"],
    )
    assert verdict["healthy"] == ["node1", "node2"]
    assert verdict["unhealthy"] == {
        "node3": [
            "gpu_health: GPU 3 xid: Xid 79 at 00000000:3B:00.0 (remedy: reboot)",
            "nccl_check: bisection: slow in every group it was in",
        ],
        "node4": [health.NOT_REACHED],
    }
    cards = {c["host"]: c for c in verdict["cards"]}
    assert cards["node2"]["status"] == "amber" and cards["node2"]["problems"] == [
        "gpu_health: GPU 0 xid: Xid 13 (remedy: restart_app)"
    ]
    # The most severe remedy among the FAILING checks (reboot beats reset_gpu; a passing check's is not counted).
    assert cards["node3"]["remedy"] == "reboot"
    assert cards["node3"]["gates"] == {"gpu_health": "red", "nccl_check": "red"}
    assert cards["node4"]["status"] == "red" and cards["node4"]["remedy"] is None
    assert verdict["summary"][0] == "2 of 4 node(s) healthy (judged by gpu_health, nccl_check)"
    assert verdict["summary"][2].startswith("node3 red (remedy: reboot): gpu_health: GPU 3 xid")


def test_a_cluster_no_gate_judged_is_reported_unjudged_not_healthy():
    verdict = health.judge(NODES, {"node1": {"gpu_health": None, "nccl_check": None}}, NODES)
    assert verdict["healthy"] == [] and verdict["unjudged"] == NODES and verdict["judged_by"] == []
    assert [c["status"] for c in verdict["cards"]] == ["unjudged"] * 4
    # Not judged at all: the hostfile takes every node (mpi.py's hostfile_nodes of None), as without verify.yml.
    assert verdict["job_nodes"] is None
    assert verdict["summary"] == [
        "0 of 4 node(s) healthy, 4 unjudged (judged by no gate: the cluster was not judged, the job takes every node "
        "as without verify.yml)"
    ]


def test_a_node_that_dropped_out_of_verify_gets_no_rank_when_no_gate_judged():
    """No gate ran (e.g. --tags ib_check,cluster_health,mpi_hostfile) and ib_check stopped node2: node2 is red and
    out of the job; the others, not judged, take the ranks as without verify.yml."""
    verdict = health.judge(NODES, {}, ["node1", "node3", "node4"])
    assert verdict["unhealthy"] == {"node2": [health.NOT_REACHED]} and verdict["judged_by"] == []
    assert verdict["job_nodes"] == ["node1", "node3", "node4"]
    assert mpi.hostfile_nodes(NODES, verdict["job_nodes"]) == ["node1", "node3", "node4"]
    assert verdict["summary"] == [
        "0 of 4 node(s) healthy, 3 unjudged (judged by no gate: the cluster was not judged, the job takes every node "
        "still reached as without verify.yml)",
        "node2 red: " + health.NOT_REACHED,
    ]


def test_a_node_no_gate_judged_beside_judged_ones_is_not_healthy_and_gets_no_rank():
    verdict = health.judge(NODES, {"node1": {"gpu_health": GREEN}, "node2": {"gpu_health": GREEN}}, NODES)
    assert verdict["healthy"] == ["node1", "node2"] and verdict["unjudged"] == ["node3", "node4"]
    assert verdict["job_nodes"] == ["node1", "node2"] and verdict["unhealthy"] == {}
    assert mpi.hostfile_nodes(NODES, verdict["job_nodes"]) == ["node1", "node2"]
    assert verdict["summary"] == [
        "2 of 4 node(s) healthy, 2 unjudged (judged by gpu_health)",
        "node3 unjudged: no gate reported on it, left out of the job",
        "node4 unjudged: no gate reported on it, left out of the job",
    ]


@pytest.mark.parametrize(
    "report,message",
    [
        ("red", "gpu_health_report of node1 must be a dict"),
        ({"status": "blue"}, "gpu_health_report of node1: status must be one of green, amber, red, got 'blue'"),
        ({"status": "red", "problems": "x"}, "problems must be a list"),
    ],
)
def test_malformed_reports_are_refused_naming_node_and_gate(report, message):
    with pytest.raises(ValueError, match=message):
        health.judge(NODES, {"node1": {"gpu_health": report}}, NODES)


def test_the_filter_reads_each_gate_report_from_hostvars():
    hostvars = {
        "node1": {"gpu_health_report": GREEN, "nccl_check_report": GREEN},
        "node2": {"gpu_health_report": XID79},
        "node3": {},
    }
    verdict = health_filter.cluster_health(["node1", "node2", "node3"], hostvars, ["gpu_health", "nccl_check"], NODES)
    assert (
        verdict["healthy"] == ["node1"] and list(verdict["unhealthy"]) == ["node2"] and verdict["unjudged"] == ["node3"]
    )
    assert health_filter.FilterModule().filters() == {"cluster_health": health_filter.cluster_health}
    with pytest.raises(AnsibleFilterError, match=r"cluster_health: .*status must be one of"):
        health_filter.cluster_health(["node1"], {"node1": {"gpu_health_report": {"status": "?"}}}, ["gpu_health"], [])
    with pytest.raises(AnsibleFilterError, match="hostvars must be a mapping"):
        health_filter.cluster_health(["node1"], [], ["gpu_health"], [])


@pytest.mark.parametrize("nodes", ["node1", {"node1": {}}, 3])
def test_nodes_that_are_not_a_list_of_names_are_refused(nodes):
    with pytest.raises(ValueError, match="nodes must be a list of host names"):
        health.judge(nodes, {}, [])


def test_a_repeated_node_is_refused():
    with pytest.raises(ValueError, match="must not repeat a host"):
        health.judge(["node1", "node2", "node1"], {}, ["node1", "node2"])


def test_a_green_gate_adds_no_problem_and_every_amber_or_red_node_gets_a_summary_line():
    chatty_green = {"status": "green", "ok": True, "problems": ["informational only"]}
    verdict = health.judge(
        NODES,
        reports(
            node1={"gpu_health": chatty_green},
            node2={"gpu_health": AMBER},
            node3={"gpu_health": GREEN, "nccl_check": SLOW},
        ),
        NODES,
    )
    cards = {c["host"]: c for c in verdict["cards"]}
    assert cards["node1"]["problems"] == [] and cards["node1"]["status"] == "green"
    assert cards["node2"]["remedy"] is None
    assert verdict["healthy"] == ["node1", "node2", "node4"]
    assert verdict["summary"] == [
        "3 of 4 node(s) healthy (judged by gpu_health, nccl_check)",
        "node2 amber: gpu_health: GPU 0 xid: Xid 13 (remedy: restart_app)",
        "node3 red: nccl_check: bisection: slow in every group it was in",
    ]


def test_the_remedy_counts_only_failing_verdicts_with_a_known_remedy():
    report = {
        "status": "red",
        "ok": False,
        "problems": ["p"],
        "verdicts": [
            "not a verdict",
            {"gpu": 0, "check": "a", "detail": "", "remedy": "isolate"},  # no "ok": passing
            {"gpu": 0, "check": "b", "ok": False, "detail": "", "remedy": "melt"},  # unknown remedy
            {"gpu": 0, "check": "c", "ok": False, "detail": "", "remedy": "restart_app"},
            {"gpu": 1, "check": "d", "ok": False, "detail": "", "remedy": "none"},
        ],
    }
    verdict = health.judge(["node1"], {"node1": {"gpu_health": report}}, ["node1"])
    assert verdict["cards"][0]["remedy"] == "restart_app"
    assert verdict["summary"][1] == "node1 red (remedy: restart_app): gpu_health: p"


def test_a_node_no_gate_judged_is_red_when_it_dropped_out_and_gates_are_listed_once():
    verdict = health.judge(
        ["node1", "node2", "node3"],
        {"node1": {"nccl_check": GREEN}, "node2": {"gpu_health": GREEN, "nccl_check": GREEN}},
        ["node1", "node2"],
    )
    assert verdict["judged_by"] == ["nccl_check", "gpu_health"]
    assert verdict["cards"][2] == {
        "host": "node3",
        "status": "red",
        "gates": {},
        "problems": [health.NOT_REACHED],
        "remedy": None,
    }
    assert verdict["unhealthy"] == {"node3": [health.NOT_REACHED]}


def test_a_dropped_node_says_so_first_then_what_its_gates_found():
    verdict = health.judge(["node1"], {"node1": {"gpu_health": XID79, "nccl_check": SLOW}}, [])
    assert verdict["unhealthy"]["node1"] == [
        health.NOT_REACHED,
        "gpu_health: GPU 3 xid: Xid 79 at 00000000:3B:00.0 (remedy: reboot)",
        "nccl_check: bisection: slow in every group it was in",
    ]
