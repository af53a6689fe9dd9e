"""ecs_eip against the emulator: allocate and associate, idempotent, check mode without a write, an EIP of another
instance refused, unassociate and release, bad options refused before any API call (every request through the
contract check, alibabacloud_vpc20160428's models)."""

from __future__ import annotations

import pytest

from ansible_collections.scc.training.plugins.module_utils._alicloud import AlicloudApi
from ansible_collections.scc.training.plugins.modules import ecs_eip
from lab.cloud.store import Timings
from lab.cloud.testing import client, network
from tests.cloud_helpers import module_emulator, run_module, writes

emu = module_emulator(Timings(vpc=0, instance_pending=0, instance_starting=0, eip=0.1))
TAGS = {"managed-by": "scc.training", "scc-cluster": "eip"}


@pytest.fixture(scope="module")
def instances(emu):
    net = network(client(emu, auto_retry=False))
    api = AlicloudApi(emu.access_key_id, emu.access_key_secret, "cn-shanghai", ecs_endpoint=emu.endpoint)
    params = {"InstanceType": "ecs.g7.large", "ImageId": "m-1", "VSwitchId": net["vsw"], "SecurityGroupId": net["sg"]}
    return [api.call("ecs", "RunInstances", params)["InstanceIdSets"]["InstanceIdSet"][0] for _n in range(2)]


GOOD = dict(
    name="b-eip",
    description=None,
    tags=TAGS,
    instance_id=None,
    bandwidth=5,
    internet_charge_type="PayByTraffic",
    state="present",
)


@pytest.mark.parametrize(
    "change,option",
    [
        ({"name": ""}, "name"),
        ({"name": "http://x"}, "name"),
        ({"name": "n" * 129}, "name"),
        ({"description": "https://x"}, "description"),
        ({"bandwidth": 0}, "bandwidth"),
        ({"bandwidth": 201}, "bandwidth"),
        ({"bandwidth": 501, "internet_charge_type": "PayByBandwidth"}, "bandwidth"),
        ({"tags": {}, "state": "absent"}, "tags"),
        ({"instance_id": "sg-1"}, "instance_id"),
    ],
)
def test_bad_options_name_the_option(change, option):
    errors = ecs_eip.validate(dict(GOOD, **change))
    assert len(errors) == 1 and errors[0].startswith(option), errors


def test_bad_options_fail_before_any_api_call(emu):
    mark = len(emu.calls)
    result = run_module(emu, "ecs_eip", name="b-eip", state="absent")
    assert result["failed"] and "tags is required" in result["msg"]
    assert len(emu.calls) == mark


def test_allocate_associate_idempotent_then_release(emu, instances):
    first, other = instances
    mark = len(emu.calls)
    predicted = run_module(emu, "ecs_eip", check=True, name="b-eip", tags=TAGS, instance_id=first)
    assert predicted["changed"] and predicted["eip"]["instance_id"] == first
    assert writes(emu, mark) == [] and emu.eips() == []

    made = run_module(emu, "ecs_eip", name="b-eip", tags=TAGS, instance_id=first)
    assert made["changed"], made
    eip = made["eip"]
    assert (eip["status"], eip["instance_id"], eip["tags"]) == ("InUse", first, TAGS)
    assert [e["IpAddress"] for e in emu.eips()] == [eip["ip_address"]]
    assert [i["EipAddress"]["IpAddress"] for i in emu.instances() if i["InstanceId"] == first] == [eip["ip_address"]]
    actions = [c["action"] for c in emu.calls[mark:]]
    assert actions.count("AllocateEipAddress") == 1 and actions.count("AssociateEipAddress") == 1
    assert all("ClientToken" in c["params"] for c in emu.calls[mark:] if c["action"] in ("AllocateEipAddress",))

    mark = len(emu.calls)
    again = run_module(emu, "ecs_eip", name="b-eip", tags=TAGS, instance_id=first)
    assert not again["changed"] and again["eip"] == eip
    assert {c["action"] for c in emu.calls[mark:]} == {"DescribeEipAddresses"}

    # Associated with another instance: refused, not moved.
    moved = run_module(emu, "ecs_eip", name="b-eip", tags=TAGS, instance_id=other)
    assert moved["failed"] and "is associated with %s" % first in moved["msg"]
    assert emu.eips()[0]["InstanceId"] == first

    # Another cluster's tags: not this EIP.
    mark = len(emu.calls)
    theirs = run_module(emu, "ecs_eip", name="b-eip", tags={"managed-by": "someone"}, state="absent")
    assert not theirs["changed"] and len(emu.eips()) == 1

    predicted = run_module(emu, "ecs_eip", check=True, name="b-eip", tags=TAGS, state="absent")
    assert predicted["changed"] and len(emu.eips()) == 1
    assert not [c for c in emu.calls[mark:] if c["action"] in ("UnassociateEipAddress", "ReleaseEipAddress")]

    gone = run_module(emu, "ecs_eip", name="b-eip", tags=TAGS, state="absent")
    assert gone["changed"] and gone["eip"] == {} and emu.eips() == []
    assert all(i["EipAddress"]["IpAddress"] == "" for i in emu.instances())
    assert not run_module(emu, "ecs_eip", name="b-eip", tags=TAGS, state="absent")["changed"]


def test_reassociated_after_someone_unassociated_it(emu, instances):
    """The association's ClientToken answers with its first result once that was undone: the next one is used."""
    first = instances[0]
    eip = run_module(emu, "ecs_eip", name="re-eip", tags=TAGS, instance_id=first)["eip"]
    api = AlicloudApi(emu.access_key_id, emu.access_key_secret, "cn-shanghai", vpc_endpoint=emu.endpoint)
    api.call("vpc", "UnassociateEipAddress", {"AllocationId": eip["allocation_id"], "InstanceId": first})
    again = run_module(emu, "ecs_eip", name="re-eip", tags=TAGS, instance_id=first)
    assert again["changed"] and again["eip"]["instance_id"] == first and again["eip"]["status"] == "InUse"
    assert run_module(emu, "ecs_eip", name="re-eip", tags=TAGS, state="absent")["changed"]
    assert emu.eips() == []
