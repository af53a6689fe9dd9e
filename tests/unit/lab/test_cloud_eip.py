"""EIPs in the cloud emulator (VPC API 2016-04-28: AllocateEipAddress, AssociateEipAddress, UnassociateEipAddress,
ReleaseEipAddress, DescribeEipAddresses), each request held to alibabacloud_vpc20160428's models by the contract check
(tests/conftest.py fails a test on any finding). An EIP's address is loopback: the lab's network rule."""

from __future__ import annotations

import ipaddress
import time

import pytest

from ansible_collections.scc.training.plugins.module_utils._alicloud import AlicloudApi, AlicloudApiError
from lab.cloud import Timings
from lab.cloud.testing import client, network

EMULATOR_TIMINGS = Timings(instance_pending=0, instance_starting=0, eip=0.2)


@pytest.fixture
def api(emu):
    return AlicloudApi(
        emu.access_key_id, emu.access_key_secret, "cn-shanghai", ecs_endpoint=emu.endpoint, vpc_endpoint=emu.endpoint
    )


@pytest.fixture
def instance(emu, api):
    net = network(client(emu, auto_retry=False))
    reply = api.call(
        "ecs",
        "RunInstances",
        {"InstanceType": "ecs.g7.large", "ImageId": "m-1", "VSwitchId": net["vsw"], "SecurityGroupId": net["sg"]},
    )
    return reply["InstanceIdSets"]["InstanceIdSet"][0]


def eip_of(api, allocation_id):
    [eip] = api.call("vpc", "DescribeEipAddresses", {"AllocationId": allocation_id})["EipAddresses"]["EipAddress"]
    return eip


def wait_status(api, allocation_id, status):
    deadline = time.monotonic() + 5
    while eip_of(api, allocation_id)["Status"] != status:
        assert time.monotonic() < deadline, eip_of(api, allocation_id)
        time.sleep(0.05)


def test_an_eip_is_a_loopback_address_and_goes_through_its_states(emu, api, instance):
    reply = api.call(
        "vpc", "AllocateEipAddress", {"Name": "b-eip", "InternetChargeType": "PayByTraffic", "Tag.1.Key": "k"}
    )
    allocation_id, address = reply["AllocationId"], reply["EipAddress"]
    assert ipaddress.ip_address(address).is_loopback  # never a public address
    eip = eip_of(api, allocation_id)
    assert (eip["Status"], eip["IpAddress"], eip["Name"], eip["InstanceId"]) == ("Available", address, "b-eip", "")
    assert eip["Tags"] == {"Tag": [{"Key": "k", "Value": ""}]}

    api.call("vpc", "AssociateEipAddress", {"AllocationId": allocation_id, "InstanceId": instance})
    assert eip_of(api, allocation_id)["Status"] == "Associating"
    # Not releasable while associated; not associable twice.
    with pytest.raises(AlicloudApiError) as refused:
        api.call("vpc", "ReleaseEipAddress", {"AllocationId": allocation_id})
    assert refused.value.code == "IncorrectEipStatus"
    wait_status(api, allocation_id, "InUse")
    [inst] = api.call("ecs", "DescribeInstances", {"InstanceIds": '["%s"]' % instance})["Instances"]["Instance"]
    assert inst["EipAddress"]["IpAddress"] == address and inst["EipAddress"]["AllocationId"] == allocation_id
    found = api.call("vpc", "DescribeEipAddresses", {"AssociatedInstanceId": instance})["EipAddresses"]["EipAddress"]
    assert [e["AllocationId"] for e in found] == [allocation_id]

    api.call("vpc", "UnassociateEipAddress", {"AllocationId": allocation_id, "InstanceId": instance})
    assert eip_of(api, allocation_id)["Status"] == "Unassociating"
    [inst] = api.call("ecs", "DescribeInstances", {"InstanceIds": '["%s"]' % instance})["Instances"]["Instance"]
    assert inst["EipAddress"]["IpAddress"] == ""
    wait_status(api, allocation_id, "Available")
    api.call("vpc", "ReleaseEipAddress", {"AllocationId": allocation_id})
    assert emu.eips() == []
    with pytest.raises(AlicloudApiError) as gone:
        api.call("vpc", "ReleaseEipAddress", {"AllocationId": allocation_id})
    assert gone.value.code == "InvalidAllocationId.NotFound"


def test_a_released_instance_leaves_its_eip_allocated_and_unassociated(emu, api, instance):
    allocation_id = api.call("vpc", "AllocateEipAddress", {})["AllocationId"]
    api.call("vpc", "AssociateEipAddress", {"AllocationId": allocation_id, "InstanceId": instance})
    api.call("ecs", "DeleteInstance", {"InstanceId": instance, "Force": "true"})
    eip = eip_of(api, allocation_id)
    assert eip["InstanceId"] == "" and emu.store.instances == {}


def test_the_bandwidth_follows_the_metering(api):
    with pytest.raises(AlicloudApiError) as refused:
        api.call("vpc", "AllocateEipAddress", {"InternetChargeType": "PayByTraffic", "Bandwidth": 201})
    assert refused.value.code.startswith("InvalidParameter")
    assert api.call("vpc", "AllocateEipAddress", {"InternetChargeType": "PayByBandwidth", "Bandwidth": 500})


def test_a_client_token_allocates_once(emu, api):
    first = api.call("vpc", "AllocateEipAddress", {"Name": "x"}, client_token_generation=0)
    again = api.call("vpc", "AllocateEipAddress", {"Name": "x"}, client_token_generation=0)
    assert first["AllocationId"] == again["AllocationId"] and len(emu.eips()) == 1
