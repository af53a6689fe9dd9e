"""scc.training.ecs_instance growing a set step by step against the offline emulator (lab/cloud), whose
RunInstances honours ClientToken as ECS does: the same token and parameters return the first create's
instances. Growing 1 -> 2 sends the same RunInstances (Amount 1) as the first create of one instance; its
token must still differ, while a retried create of the same step (same set found) keeps the token and
makes no second instance."""

from __future__ import annotations

import dataclasses

import pytest

from lab.cloud import Timings
from lab.cloud.testing import client, emulator, network
from tests.cloud_helpers import run_module

QUICK = Timings(instance_pending=0, instance_starting=0)
# Longer than the retry's backoff, shorter than run_module's listing_timeout (1 s): a rerun right after a
# lost reply does not see the instance it made yet, the way Describe* lags a create in the cloud.
LAG = 0.7


def _args(net, count, **extra):
    return dict(
        name="grow",
        count=count,
        instance_type="ecs.g6.large",
        image_id="m-debian12",
        vswitch_id=net["vsw"],
        security_group_id=net["sg"],
        tags={"managed-by": "scc.training", "test": "grow"},
        wait_timeout=10,
        **extra,
    )


def _run_instances(emu):
    return [c for c in emu.calls if c["action"] == "RunInstances"]


def _live(emu):
    return sorted(i["InstanceId"] for i in emu.instances() if i["InstanceName"] == "grow")


@pytest.fixture(name="cloud")
def _cloud(request):
    with emulator(timings=getattr(request, "param", QUICK)) as emu:
        yield emu, network(client(emu, auto_retry=False))
        assert emu.internal_errors == []


def test_growing_one_at_a_time_makes_one_new_instance_per_step(cloud):
    emu, net = cloud
    seen = []
    for count in (1, 2, 3):
        result = run_module(emu, "ecs_instance", **_args(net, count))
        assert not result.get("failed"), result
        assert result["changed"] and len(result["created"]) == 1, result
        assert result["created"][0] not in seen and len(result["instances"]) == count, result
        seen.extend(result["created"])
        assert _live(emu) == sorted(seen)
    # Three creates of Amount 1, each with its own token.
    assert len({c["params"].get("ClientToken") for c in _run_instances(emu)}) == 3


def test_a_grow_after_a_shrink_makes_a_new_instance(cloud):
    emu, net = cloud
    first = run_module(emu, "ecs_instance", **_args(net, 2))["created"]
    down = run_module(emu, "ecs_instance", **_args(net, 1))
    assert down["changed"] and len(down["deleted"]) == 1, down
    # The same set as before the first 1 -> 2 growth would present that step's token again: its instance is
    # deleted, so the next token generation makes a new one (after listing_timeout).
    up = run_module(emu, "ecs_instance", **_args(net, 2))
    assert not up.get("failed") and len(up["created"]) == 1 and up["created"][0] not in first, up
    assert len(_live(emu)) == 2


def test_a_lost_reply_retried_in_the_run_makes_one_instance(cloud):
    emu, net = cloud
    run_module(emu, "ecs_instance", **_args(net, 1))
    emu.inject("drop_after", action="RunInstances")  # the create is applied, its reply lost
    grown = run_module(emu, "ecs_instance", **_args(net, 2))
    assert not grown.get("failed") and len(grown["created"]) == 1, grown
    retried = _run_instances(emu)[1:]
    assert len(retried) == 2 and retried[0]["params"]["ClientToken"] == retried[1]["params"]["ClientToken"]
    assert len(_live(emu)) == 2


@pytest.mark.parametrize("cloud", [dataclasses.replace(QUICK, listing_lag=LAG)], indirect=True, ids=["lagging"])
def test_a_failed_grow_run_again_makes_no_second_instance(cloud):
    emu, net = cloud
    first = run_module(emu, "ecs_instance", **_args(net, 1))["created"]
    # The grow's create is applied but its reply lost and not retried: the run fails midway.
    emu.inject("drop_after", action="RunInstances")
    failed = run_module(emu, "ecs_instance", **_args(net, 2, api_retries=0))
    assert failed.get("failed") and len(_live(emu)) == 2, failed
    # Run again before the listing shows the new instance: the same set is found, so the same token is
    # sent and the cloud returns the instance the failed run made.
    again = run_module(emu, "ecs_instance", **_args(net, 2))
    assert not again.get("failed"), again
    assert len(_live(emu)) == 2 and again["created"] == [i for i in _live(emu) if i not in first], again
    tokens = [c["params"].get("ClientToken") for c in _run_instances(emu)]
    assert len(tokens) == 3 and tokens[1] == tokens[2] != tokens[0]


def test_a_create_of_several_calls_makes_every_instance(cloud, monkeypatch):
    # RunInstances takes at most 100 a call: 5 in calls of 2 stands for 201 in calls of 100, whose second call
    # sends the first one's request (Amount 100) again.
    from ansible_collections.scc.training.plugins.modules import ecs_instance

    emu, net = cloud
    monkeypatch.setattr(ecs_instance, "MAX_PER_CALL", 2)
    result = run_module(emu, "ecs_instance", **_args(net, 5))
    assert not result.get("failed") and len(result["created"]) == 5, result.get("msg")
    assert sorted(result["created"]) == _live(emu)
    assert [c["params"]["Amount"] for c in _run_instances(emu)] == ["2", "2", "1"]


# The other creates with a derived ClientToken make one resource, and only when none is found by name: the same
# request comes again only after that resource was deleted, where the token's next generation makes a new one
# (ecs_vpc: tests/integration/test_cloud_modules.py). CreateMountTarget, CreateCluster and AttachInstances
# (cs_cluster_nodes) carry no token.
@pytest.mark.parametrize(
    "module,args,key",
    [
        ("ecs_vswitch", dict(name="again", zone_id="cn-shanghai-b", cidr_block="10.0.2.0/24"), "vswitch"),
        ("ecs_security_group", dict(name="again"), "security_group"),
        ("ecs_hpc_cluster", dict(name="again"), "hpc_cluster"),
    ],
)
def test_a_one_resource_create_after_a_delete_makes_a_new_one(cloud, module, args, key):
    emu, net = cloud
    if module != "ecs_hpc_cluster":
        args = dict(args, vpc_id=net["vpc"])
    first = run_module(emu, module, **args)[key]
    assert run_module(emu, module, **args)["changed"] is False
    assert run_module(emu, module, **dict(args, state="absent"))["changed"] is True
    second = run_module(emu, module, **args)
    assert second["changed"] is True and second[key][key + "_id"] != first[key + "_id"], second
    assert run_module(emu, module, **args)[key] == second[key]
