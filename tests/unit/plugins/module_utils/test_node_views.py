"""node_views: one judged node per distinct view of the variables; a cluster of several instance types refused."""

from __future__ import annotations

from ansible_collections.scc.training.plugins.module_utils import node_views as nv


def test_equal_views_have_equal_digests_whatever_the_order_and_unequal_ones_differ():
    assert nv.view_digest({"a": 1, "b": [1, 2]}) == nv.view_digest({"b": [1, 2], "a": 1})
    assert nv.view_digest({"a": 1}) != nv.view_digest({"a": "1"})
    assert nv.view_digest({"a": 1}) != nv.view_digest({"a": 1, "scc_instance_type": None})


def test_the_first_node_of_each_view_is_judged_in_inventory_order():
    same, batch0 = nv.view_digest({"bert_launch_batch_size": 32}), nv.view_digest({"bert_launch_batch_size": 0})
    views = {"n%d" % i: same for i in range(1, 200)}
    views["n150"] = batch0
    order = sorted(views, key=lambda n: int(n[1:]))
    assert nv.nodes_to_judge(views, order) == ["n1", "n150"]
    assert nv.nodes_to_judge({}, []) == []


def test_one_type_or_none_is_no_problem():
    order = ["n1", "n2", "n3"]
    assert nv.instance_type_problems(dict.fromkeys(order, ("ecs.ebmgn8v.48xlarge", None)), order) == []
    assert nv.instance_type_problems({"n1": (None, "ecs.ebmgn8v.48xlarge")}, order) == []
    assert nv.instance_type_problems({}, order) == []


def test_several_types_are_refused_naming_the_nodes_of_each():
    order = ["n%d" % i for i in range(1, 7)]
    types = dict.fromkeys(order, (None, "ecs.ebmgn8v.48xlarge"))
    types["n2"] = ("ecs.gn8is.8xlarge", "ecs.ebmgn8v.48xlarge")  # the declared type wins over the inventory's
    (problem,) = nv.instance_type_problems(types, order)
    assert problem.startswith("scc_instance_type: the cluster mixes instance types: ")
    assert "ecs.ebmgn8v.48xlarge (n1, n3, n4 and 2 more); ecs.gn8is.8xlarge (n2)" in problem
