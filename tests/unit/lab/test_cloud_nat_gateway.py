"""NAT gateways and SNAT entries in the cloud emulator (VPC API 2016-04-28), each request held to
alibabacloud_vpc20160428's models by the contract check: the rules the module and teardown's order rely on."""

from __future__ import annotations

import time
import types

import pytest

from ansible_collections.scc.training.plugins.module_utils._alicloud import AlicloudApi, AlicloudApiError
from lab.cloud import Timings, store, vpc
from lab.cloud.testing import client, network

# Long transitions on a clock the test moves (fake_clock): no state is read after a real delay, so a loaded
# machine cannot make a Pending entry Available before the test looks.
EMULATOR_TIMINGS = Timings(eip=0, nat_gateway=60, snat_entry=60)


@pytest.fixture
def advance(monkeypatch):
    """The emulator's state clock (lab/cloud/store.py and vpc.py read time.monotonic) as real time plus what the
    test added: ``advance(seconds)``."""
    added = [0.0]
    clock = types.SimpleNamespace(**{name: getattr(time, name) for name in dir(time) if not name.startswith("_")})
    clock.monotonic = lambda: time.monotonic() + added[0]
    for module in (store, vpc):
        monkeypatch.setattr(module, "time", clock)

    def step(seconds):
        added[0] += seconds

    return step


@pytest.fixture
def api(emu):
    return AlicloudApi(
        emu.access_key_id, emu.access_key_secret, "cn-shanghai", ecs_endpoint=emu.endpoint, vpc_endpoint=emu.endpoint
    )


def status(api, ngw_id):
    found = api.call("vpc", "DescribeNatGateways", {"NatGatewayId": ngw_id})["NatGateways"]["NatGateway"]
    return found[0]["Status"] if found else None


def test_a_gateway_its_eip_and_snat_entry_hold_what_they_use(emu, api, advance):
    net = network(client(emu, auto_retry=False), cluster=False)
    reply = api.call(
        "vpc",
        "CreateNatGateway",
        {"VpcId": net["vpc"], "VSwitchId": net["vsw"], "NatType": "Enhanced", "NetworkType": "internet"},
    )
    ngw_id, table = reply["NatGatewayId"], reply["SnatTableIds"]["SnatTableId"][0]
    assert status(api, ngw_id) == "Creating"
    advance(61)
    assert status(api, ngw_id) == "Available"
    allocation = api.call("vpc", "AllocateEipAddress", {})
    association = {"AllocationId": allocation["AllocationId"], "InstanceId": ngw_id, "InstanceType": "Nat"}
    api.call("vpc", "AssociateEipAddress", association)
    # SnatIp must be an EIP of the gateway.
    with pytest.raises(AlicloudApiError) as refused:
        api.call("vpc", "CreateSnatEntry", {"SnatTableId": table, "SourceVSwitchId": net["vsw"], "SnatIp": "127.0.0.1"})
    assert refused.value.code == "InvalidParameter"
    entry = api.call(
        "vpc", "CreateSnatEntry",
        {"SnatTableId": table, "SourceVSwitchId": net["vsw"], "SnatIp": allocation["EipAddress"]},
    )["SnatEntryId"]  # fmt: skip
    # A Pending entry cannot be deleted (DeleteSnatEntry's reference, 400 IncorretSnatEntryStatus).
    with pytest.raises(AlicloudApiError) as refused:
        api.call("vpc", "DeleteSnatEntry", {"SnatTableId": table, "SnatEntryId": entry})
    assert refused.value.code == "IncorretSnatEntryStatus"
    # The EIP an SNAT entry uses stays; the gateway with an entry or an EIP stays; the vSwitch it is in stays.
    with pytest.raises(AlicloudApiError) as refused:
        api.call("vpc", "UnassociateEipAddress", {"AllocationId": allocation["AllocationId"], "InstanceType": "Nat"})
    assert refused.value.code.startswith("DependencyViolation")
    with pytest.raises(AlicloudApiError) as refused:
        api.call("vpc", "DeleteNatGateway", {"NatGatewayId": ngw_id})
    assert refused.value.code.startswith("DependencyViolation")
    with pytest.raises(AlicloudApiError) as refused:
        api.call("vpc", "DeleteVSwitch", {"VSwitchId": net["vsw"]})
    assert refused.value.code == "DependencyViolation"

    advance(61)
    api.call("vpc", "DeleteSnatEntry", {"SnatTableId": table, "SnatEntryId": entry})
    listed = api.call("vpc", "DescribeSnatTableEntries", {"SnatTableId": table})["SnatTableEntries"]["SnatTableEntry"]
    assert [e["Status"] for e in listed] == ["Deleting"]
    advance(61)
    api.call("vpc", "UnassociateEipAddress", {"AllocationId": allocation["AllocationId"], "InstanceType": "Nat"})
    api.call("vpc", "DeleteNatGateway", {"NatGatewayId": ngw_id})
    assert status(api, ngw_id) == "Deleting"
    advance(61)
    assert status(api, ngw_id) is None
    api.call("vpc", "DeleteVSwitch", {"VSwitchId": net["vsw"]})
