# -*- coding: utf-8 -*-
"""Unit tests for plugins/filter/mpi.py (scc.training.mpi_hostfile, mpi_hostfile_ranks, mpirun_argv).

mpi_hostfile's checks in full; the other two wrap plugins/module_utils/mpi.py (tested in
tests/unit/plugins/module_utils/test_mpi_argv.py): here only their errors as the filter's."""

from __future__ import annotations

import importlib.util
import pathlib

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.scc.training.plugins.plugin_utils import role_plans

_PLUGIN = pathlib.Path(__file__).resolve().parents[4] / "plugins" / "filter" / "mpi.py"
_spec = importlib.util.spec_from_file_location("scc_training_filter_mpi", _PLUGIN)
mpi = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(mpi)


def test_registered_under_their_names():
    assert mpi.FilterModule().filters() == {
        "mpi_hostfile": mpi.mpi_hostfile,
        "mpirun_argv": mpi.mpirun_argv,
        "mpirun_placement": mpi.mpirun_placement,
    }
    for name in (
        "mpi_hostfile_nodes",
        "mpi_hostfile_node_count",
        "mpi_hostfile_ranks",
        "mpi_framework_modules",
        "nccl_tests_mpirun",
    ):
        assert role_plans.plan(name) is getattr(role_plans, name)


def test_mpi_hostfile_ranks():
    assert role_plans.mpi_hostfile_ranks("node1 slots=8\nnode2 slots=8\n") == 16
    assert role_plans.mpi_hostfile_ranks("node1 slots=8\nnode2 slots=8\n", 4) == 4
    with pytest.raises(AnsibleFilterError, match=r"^mpi_hostfile_ranks: with np 0 .* 1 of 2 have none: node2$"):
        role_plans.mpi_hostfile_ranks("node1 slots=8\nnode2\n")
    with pytest.raises(AnsibleFilterError, match=r"^mpi_hostfile_ranks: input must be the hostfile's text, got list"):
        role_plans.mpi_hostfile_ranks(["node1 slots=8"])


def test_mpirun_argv_errors_name_the_filter():
    with pytest.raises(AnsibleFilterError, match=r"^mpirun_argv: missing key 'np'$"):
        mpi.mpirun_argv({})


def test_render_normal():
    entries = [{"host": "node1", "slots": 8}, {"host": "node2", "slots": 8}]
    assert mpi.mpi_hostfile(entries) == "node1 slots=8\nnode2 slots=8\n"


def test_render_single_host_fqdn():
    assert mpi.mpi_hostfile([{"host": "gpu-01.cluster.local", "slots": 1}]) == "gpu-01.cluster.local slots=1\n"


def test_order_is_input_order_and_stable():
    entries = [{"host": "node3", "slots": 2}, {"host": "node1", "slots": 4}, {"host": "node2", "slots": 1}]
    first = mpi.mpi_hostfile(entries)
    assert first == "node3 slots=2\nnode1 slots=4\nnode2 slots=1\n"
    assert all(mpi.mpi_hostfile(list(entries)) == first for unused in range(5))
    # the input is not mutated
    assert [e["host"] for e in entries] == ["node3", "node1", "node2"]


def test_accepts_tuple_and_generator():
    gen = ({"host": h, "slots": 2} for h in ("a", "b"))
    assert mpi.mpi_hostfile(gen) == "a slots=2\nb slots=2\n"
    assert mpi.mpi_hostfile(({"host": "a", "slots": 3},)) == "a slots=3\n"


@pytest.mark.parametrize("slots", [0, -1, -8])
def test_slots_below_one(slots):
    with pytest.raises(AnsibleFilterError, match=r"node2\): slots must be an integer >= 1, got %d" % slots):
        mpi.mpi_hostfile([{"host": "node1", "slots": 1}, {"host": "node2", "slots": slots}])


@pytest.mark.parametrize("slots", ["8", 8.0, 2.5, None, True, False, [8]])
def test_slots_not_int(slots):
    with pytest.raises(AnsibleFilterError, match=r"entry 0 \(host node1\): slots must be an integer >= 1"):
        mpi.mpi_hostfile([{"host": "node1", "slots": slots}])


def test_duplicate_host():
    with pytest.raises(AnsibleFilterError, match=r"entry 2: duplicate host 'node1' \(already entry 0\)"):
        mpi.mpi_hostfile([{"host": "node1", "slots": 1}, {"host": "node2", "slots": 1}, {"host": "node1", "slots": 2}])


@pytest.mark.parametrize("host", ["", None, 5])
def test_empty_or_non_string_host(host):
    with pytest.raises(AnsibleFilterError, match=r"entry 0: host must be a non-empty string"):
        mpi.mpi_hostfile([{"host": host, "slots": 1}])


@pytest.mark.parametrize("host", ["node 1", "node1\n", "\tnode1"])
def test_host_with_whitespace(host):
    with pytest.raises(AnsibleFilterError, match=r"must not contain whitespace"):
        mpi.mpi_hostfile([{"host": host, "slots": 1}])


def test_missing_keys_and_unknown_keys():
    with pytest.raises(AnsibleFilterError, match=r"entry 0 has no 'host'"):
        mpi.mpi_hostfile([{"slots": 1}])
    with pytest.raises(AnsibleFilterError, match=r"entry 0 \(host 'node1'\) has no 'slots'"):
        mpi.mpi_hostfile([{"host": "node1"}])
    with pytest.raises(AnsibleFilterError, match=r"unknown key\(s\) slot"):
        mpi.mpi_hostfile([{"host": "node1", "slot": 1}])


@pytest.mark.parametrize("value", [[], "node1 slots=1", {"host": "node1", "slots": 1}, None, 3])
def test_bad_input_shape(value):
    with pytest.raises(AnsibleFilterError, match=r"^mpi_hostfile: input"):
        mpi.mpi_hostfile(value)


def test_entry_not_a_dict():
    with pytest.raises(AnsibleFilterError, match=r"entry 1 must be a dict"):
        mpi.mpi_hostfile([{"host": "node1", "slots": 1}, "node2"])


NODES = ["node1", "node2", "node3", "node4"]


@pytest.mark.parametrize(
    "healthy,exclude,expected",
    [
        # Not judged in this run: every node, in inventory order.
        (None, True, NODES),
        (None, False, NODES),
        # The unhealthy ones left out; inventory order kept (not scc_healthy_nodes' order).
        (["node4", "node1", "node3"], True, ["node1", "node3", "node4"]),
        (NODES, False, NODES),
    ],
)
def test_mpi_hostfile_nodes(healthy, exclude, expected):
    assert role_plans.mpi_hostfile_nodes(NODES, healthy, exclude) == expected


def test_mpi_hostfile_nodes_refuses_unhealthy_nodes_unless_excluded():
    with pytest.raises(AnsibleFilterError, match=r"unhealthy node\(s\) node2, node4 .*mpi_hostfile_exclude_unhealthy"):
        role_plans.mpi_hostfile_nodes(NODES, ["node1", "node3"], False)


def test_mpi_hostfile_nodes_refuses_an_empty_result_and_bad_input():
    with pytest.raises(AnsibleFilterError, match=r"no healthy node left .*node1, node2, node3, node4"):
        role_plans.mpi_hostfile_nodes(NODES, [], True)
    with pytest.raises(AnsibleFilterError, match="scc_healthy_nodes must be a list"):
        role_plans.mpi_hostfile_nodes(NODES, "node1", True)
    with pytest.raises(AnsibleFilterError, match="no node"):
        role_plans.mpi_hostfile_nodes([], None, True)


def test_mpi_hostfile_node_count():
    text = "# healthy nodes\nnode1 slots=8\n\nnode3 slots=8\n"
    assert role_plans.mpi_hostfile_node_count(text) == 2
    assert role_plans.mpi_hostfile_node_count(text, 2) == 2
    with pytest.raises(
        AnsibleFilterError, match=r"lists 2 node\(s\) \(node1, node3\), fewer than bert_launch_min_nodes \(3\)"
    ):
        role_plans.mpi_hostfile_node_count(text, 3)
    with pytest.raises(AnsibleFilterError, match="the hostfile's text"):
        role_plans.mpi_hostfile_node_count(None, 1)
