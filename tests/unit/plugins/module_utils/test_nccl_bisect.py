# -*- coding: utf-8 -*-
"""plugins/module_utils/nccl_bisect.py: the bad nodes found in O(log N) rounds of disjoint group runs."""

from __future__ import annotations

import itertools
import math

import pytest

from ansible_collections.scc.training.plugins.module_utils import nccl_bisect


def nodes(n):
    return ["node%d" % i for i in range(1, n + 1)]


def oracle(bad, runs=None):
    """A group run is slow when it holds a bad node (busbw 2 GB/s, else 10)."""

    def run(hosts):
        assert len(hosts) >= 2, hosts
        if runs is not None:
            runs.append(list(hosts))
        ok = not set(hosts) & set(bad)
        return ok, 10.0 if ok else 2.0

    return run


def bound(n):
    return 2 * math.log2(n) + 2


def assert_rounds_disjoint(state):
    for r in state["rounds"]:
        seen = [h for g in r["groups"] for h in g["hosts"]]
        assert len(seen) == len(set(seen)), r


def test_no_bad_node_is_the_first_round_alone():
    runs = []
    state = nccl_bisect.bisect(nodes(16), oracle([], runs))
    assert runs == [nodes(16)]
    assert (state["done"], state["bad"], state["unresolved"], len(state["rounds"])) == (True, [], [], 1)
    assert nccl_bisect.summary(state) == {
        "rounds": [{"round": 1, "groups": [{"hosts": nodes(16), "busbw_gbps": 10.0, "ok": True}]}],
        "bad_nodes": [],
        "unresolved": [],
        "unreproduced": [],
    }


@pytest.mark.parametrize("n", [4, 5, 7, 8, 13, 16, 31, 64, 100])
def test_one_bad_node_anywhere(n):
    for bad in nodes(n):
        state = nccl_bisect.bisect(nodes(n), oracle([bad]))
        assert (state["bad"], state["unresolved"]) == ([bad], [])
        assert len(state["rounds"]) <= 1 + math.ceil(math.log2(n)) <= bound(n)
        assert_rounds_disjoint(state)


@pytest.mark.parametrize("n", [4, 6, 8, 11, 16])
def test_two_bad_nodes_every_placement(n):
    for bad in itertools.combinations(nodes(n), 2):
        state = nccl_bisect.bisect(nodes(n), oracle(bad))
        assert (state["bad"], state["unresolved"]) == (list(bad), []), (n, bad)
        assert len(state["rounds"]) <= bound(n), (n, bad, state["rounds"])
        assert_rounds_disjoint(state)


def test_never_all_pairs_and_groups_of_two_or_more():
    runs = []
    nccl_bisect.bisect(nodes(64), oracle(["node7", "node50"], runs))
    assert all(len(r) >= 2 for r in runs)
    assert len(runs) < 64 * 63 // 2 / 20


def test_a_lone_suspect_runs_with_a_node_proven_good():
    state = nccl_bisect.bisect(nodes(4), oracle(["node1"]))
    assert [[g["hosts"] for g in r["groups"]] for r in state["rounds"]] == [
        [nodes(4)],
        [["node1", "node2"], ["node3", "node4"]],
        [["node1", "node3"], ["node2", "node4"]],
    ]
    assert state["good"] == ["node2", "node3", "node4"]


def test_the_untested_half_of_a_slow_group_is_deduced():
    """node1 and node2 fast together while the cluster was slow: node3 is bad without a run of its own."""
    state = nccl_bisect.bisect(nodes(3), oracle(["node3"]))
    assert [[g["hosts"] for g in r["groups"]] for r in state["rounds"]] == [[nodes(3)], [["node1", "node2"]]]
    assert state["bad"] == ["node3"]


def test_three_nodes_before_any_is_proven_good():
    """node1 slow with node2 and with node3: the pair never run (node2, node3) proves them good."""
    state = nccl_bisect.bisect(nodes(3), oracle(["node1"]))
    assert (state["bad"], state["unresolved"]) == (["node1"], [])
    assert_rounds_disjoint(state)


def test_two_nodes_cannot_be_told_apart_without_a_good_one():
    state = nccl_bisect.bisect(nodes(2), oracle(["node2"]))
    assert (state["bad"], state["unresolved"], len(state["rounds"])) == ([], ["node1", "node2"], 1)


def test_every_node_bad_ends_unresolved_not_in_a_loop():
    state = nccl_bisect.bisect(nodes(8), oracle(nodes(8)))
    assert state["done"] and sorted(state["bad"] + state["unresolved"]) == sorted(nodes(8))
    assert_rounds_disjoint(state)


def test_a_slowness_of_the_whole_group_only_is_reported_unreproduced():
    def whole_only(hosts):
        return len(hosts) < 8, 1.0

    state = nccl_bisect.bisect(nodes(8), whole_only)
    assert (state["bad"], state["unresolved"], state["unreproduced"]) == ([], [], [nodes(8)])


def test_driven_round_by_round_with_results_in_any_order():
    state = nccl_bisect.new_state(nodes(8))
    run = oracle(["node6"])
    while not state["done"]:
        groups = nccl_bisect.next_round(state)
        results = [{"hosts": g, "ok": run(g)[0], "busbw_gbps": run(g)[1]} for g in reversed(groups)]
        state = nccl_bisect.record(state, results)
    assert state["bad"] == ["node6"]
    assert nccl_bisect.next_round(state) == []
    with pytest.raises(ValueError, match="done"):
        nccl_bisect.record(state, [])


def test_bad_input():
    with pytest.raises(ValueError, match="at least 2 nodes"):
        nccl_bisect.new_state(["node1"])
    with pytest.raises(ValueError, match="unique"):
        nccl_bisect.new_state(["a", "a"])
    with pytest.raises(ValueError, match="no result for the group"):
        nccl_bisect.record(nccl_bisect.new_state(["a", "b"]), [{"hosts": ["a"], "ok": True}])


def test_max_rounds_stops_a_search_that_needs_more():
    needed = len(nccl_bisect.bisect(nodes(8), oracle({"node3"}))["rounds"])
    assert needed > 1
    assert nccl_bisect.summary(nccl_bisect.bisect(nodes(8), oracle({"node3"}), max_rounds=needed))["bad_nodes"] == [
        "node3"
    ]
    with pytest.raises(RuntimeError, match="bisection did not end in %d rounds" % (needed - 1)):
        nccl_bisect.bisect(nodes(8), oracle({"node3"}), max_rounds=needed - 1)


def test_a_round_that_would_only_repeat_groups_already_run_ends_the_search():
    """node1, node2, node4 bad of 5: after round 8 the only groups left to run were all run before, so
    the search stops there and names node1 and node2 unresolved instead of running them again."""
    runs = []
    state = nccl_bisect.bisect(nodes(5), oracle(["node1", "node2", "node4"], runs))
    assert (state["bad"], state["unresolved"], state["unreproduced"]) == (["node4"], ["node1", "node2"], [])
    assert len(state["rounds"]) == 8
    assert runs[-3:] == [["node1", "node3"], ["node2", "node3"], ["node5", "node3"]]


def test_two_bad_nodes_of_four_are_found_in_three_rounds():
    """The lone suspects pair up in order (node1 with node3, node2 with node4): the fast pair proves two
    nodes good, the slow one is then judged against them without a fourth round."""
    state = nccl_bisect.bisect(nodes(4), oracle(["node1", "node3"]))
    assert [[g["hosts"] for g in r["groups"]] for r in state["rounds"]] == [
        [nodes(4)],
        [["node1", "node2"], ["node3", "node4"]],
        [["node1", "node3"], ["node2", "node4"]],
    ]
    assert (state["bad"], state["good"], state["unresolved"]) == (["node1", "node3"], ["node2", "node4"], [])
