"""A look-up of more ECS instances by id than one DescribeInstances takes (InstanceIds: at most 100, ECS API
reference "DescribeInstances"; research/aliyun_facts.md, section 2; the emulator refuses 101, lab/cloud/ecs.py),
against the offline emulator: ecs_instance_info and cs_cluster_nodes (provision.yml passes it every instance of
the cluster) find all 205 instances, asking at most 100 a call, each id once."""

from __future__ import annotations

import json

import pytest

from lab.cloud.store import Timings
from tests.cloud_helpers import ZONE, module_emulator, run_module

COUNT = 205  # three calls: 100 + 100 + 5
OURS = {"managed-by": "scc.training", "test": "ids"}
emu = module_emulator(Timings(instance_pending=0, instance_starting=0, cluster=0, node=0))


def _network(emu, key, cidr):
    vpc = run_module(emu, "ecs_vpc", name="ids-" + key, cidr_block=cidr + ".0.0/16")["vpc"]["vpc_id"]
    vsw = run_module(emu, "ecs_vswitch", name="ids-" + key, vpc_id=vpc, zone_id=ZONE, cidr_block=cidr + ".0.0/24")
    sg = run_module(emu, "ecs_security_group", name="ids-" + key, vpc_id=vpc, tags=OURS)["security_group"]
    return dict(vpc_id=vpc, vswitch_id=vsw["vswitch"]["vswitch_id"], security_group_id=sg["security_group_id"])


def _instances(emu, net, key, count):
    made = run_module(
        emu, "ecs_instance", name="ids-" + key, count=count, instance_type="ecs.g6.large", image_id="m-debian12",
        vswitch_id=net["vswitch_id"], security_group_id=net["security_group_id"], tags=OURS, wait_timeout=30,
    )  # fmt: skip
    assert not made.get("failed"), made.get("msg")
    return [i["instance_id"] for i in made["instances"]]


@pytest.fixture(scope="module")
def cloud(emu):
    """205 instances in the cluster's VPC (oldest first), one in another VPC, and a running ACK cluster."""
    net = _network(emu, "a", "10.40")
    ids = _instances(emu, net, "a", COUNT)
    outsider = _instances(emu, _network(emu, "b", "10.50"), "b", 1)[0]
    cluster = run_module(
        emu,
        "cs_cluster",
        name="ids",
        vpc_id=net["vpc_id"],
        vswitch_ids=[net["vswitch_id"]],
        pod_cidr="172.20.0.0/16",
        tags=OURS,
    )["cluster"]
    return dict(ids=ids, outsider=outsider, cluster_id=cluster["cluster_id"])


def _asked(emu, since):
    """``(NextToken, InstanceIds)`` of each DescribeInstances call since ``since`` that named ids."""
    calls = [c["params"] for c in emu.calls[since:] if c["action"] == "DescribeInstances"]
    return [(p.get("NextToken"), json.loads(p["InstanceIds"])) for p in calls if "InstanceIds" in p]


def _listings(asked):
    """The ids of each listing: a call of no more than 100 ids, its first page (no NextToken; NextToken paging)."""
    assert asked and all(len(batch) <= 100 for token, batch in asked), [len(batch) for token, batch in asked]
    return [batch for token, batch in asked if token is None]


def _each_id_once_in_calls_of_at_most_100(asked, ids):
    listings = _listings(asked)
    assert [len(batch) for batch in listings] == [100, 100, len(ids) - 200]
    assert sorted(i for batch in listings for i in batch) == sorted(set(ids))


def _join(emu, cloud, ids):
    """cs_cluster_nodes: ``ids`` join the cluster."""
    return run_module(emu, "cs_cluster_nodes", cluster_id=cloud["cluster_id"], instance_ids=ids, password="Pw-1234567")


def test_instance_info_finds_every_one_of_more_than_100_ids(emu, cloud):
    ids = cloud["ids"]
    mark = len(emu.calls)
    # In reverse, with one asked twice: the result is every instance once, oldest first.
    result = run_module(emu, "ecs_instance_info", instance_ids=ids[::-1] + ids[:1])
    assert not result.get("failed"), result.get("msg")
    assert [i["instance_id"] for i in result["instances"]] == ids
    _each_id_once_in_calls_of_at_most_100(_asked(emu, mark), ids)
    # The ids still filter: one of the set and the instance of the other VPC, in one call.
    some = run_module(emu, "ecs_instance_info", instance_ids=[ids[150], cloud["outsider"]])["instances"]
    assert sorted(i["instance_id"] for i in some) == sorted([ids[150], cloud["outsider"]])


def test_ack_nodes_of_more_than_100_instances_are_attached(emu, cloud):
    ids = cloud["ids"]
    mark = len(emu.calls)
    result = _join(emu, cloud, ids)
    assert not result.get("failed"), result.get("msg")
    assert result["changed"] and sorted(result["added"]) == sorted(ids)
    assert sorted(n["instance_id"] for n in result["nodes"]) == sorted(ids)
    assert {n["state"] for n in result["nodes"]} == {"running"}
    _each_id_once_in_calls_of_at_most_100(_asked(emu, mark), ids)
    again = _join(emu, cloud, ids)
    assert not again.get("failed") and not again["changed"] and again["added"] == [], again.get("msg")


def test_an_instance_outside_the_cluster_vpc_in_a_later_call_is_refused_before_any_write(emu, cloud):
    wanted = cloud["ids"][:150] + [cloud["outsider"], "i-doesnotexist"]
    mark = len(emu.calls)
    result = _join(emu, cloud, wanted)
    assert result.get("failed")
    assert "instance_ids: %s is in VPC" % cloud["outsider"] in result["msg"], result["msg"]
    assert "instance_ids: i-doesnotexist is not an ECS instance" in result["msg"], result["msg"]
    assert [c["action"] for c in emu.calls[mark:] if not c["action"].startswith("Describe")] == []
    assert [len(batch) for batch in _listings(_asked(emu, mark))] == [100, 52]
