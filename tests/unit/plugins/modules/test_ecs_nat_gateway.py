"""ecs_nat_gateway against the emulator: an enhanced NAT gateway in the nodes' vSwitch with an EIP and the vSwitch's
SNAT entry, idempotent, check mode without a write, a gateway or EIP of another owner refused, deleted with its SNAT
entry and the EIP's association (the EIP left allocated), bad options refused before any API call (every request
through the contract check, alibabacloud_vpc20160428's models)."""

from __future__ import annotations

import pytest

from ansible_collections.scc.training.plugins.modules import ecs_nat_gateway
from lab.cloud.store import Timings
from lab.cloud.testing import client, network
from tests.cloud_helpers import module_emulator, run_module, writes

emu = module_emulator(Timings(vpc=0, eip=0.05, nat_gateway=0.1, snat_entry=0.05))
TAGS = {"managed-by": "scc.training", "scc-cluster": "nat"}


@pytest.fixture(scope="module")
def net(emu):
    return network(client(emu, auto_retry=False), cluster=False)


def eip(emu, name):
    return run_module(emu, "ecs_eip", name=name, tags=TAGS)["eip"]


GOOD = dict(
    name="b-nat",
    description=None,
    tags=TAGS,
    vpc_id="vpc-1",
    vswitch_id="vsw-1",
    eip_allocation_id="eip-1",
    snat_source_vswitch_id=None,
    state="present",
)


@pytest.mark.parametrize(
    "change,option",
    [
        ({"name": "b"}, "name"),
        ({"name": "1nat"}, "name"),
        ({"name": "nat gw"}, "name"),
        ({"name": "n" * 129}, "name"),
        ({"description": "https://x"}, "description"),
        ({"description": "x"}, "description"),
        ({"vpc_id": None}, "vpc_id"),
        ({"vswitch_id": "sg-1"}, "vswitch_id"),
        ({"eip_allocation_id": None}, "eip_allocation_id"),
        ({"eip_allocation_id": "i-1"}, "eip_allocation_id"),
        ({"snat_source_vswitch_id": "vpc-1"}, "snat_source_vswitch_id"),
        ({"tags": {}, "state": "absent"}, "tags"),
    ],
)
def test_bad_options_name_the_option(change, option):
    errors = ecs_nat_gateway.validate(dict(GOOD, **change))
    assert len(errors) == 1 and errors[0].startswith(option), errors


def test_absent_needs_only_name_and_tags():
    assert (
        ecs_nat_gateway.validate(dict(GOOD, vpc_id=None, vswitch_id=None, eip_allocation_id=None, state="absent")) == []
    )


def test_bad_options_fail_before_any_api_call(emu):
    mark = len(emu.calls)
    result = run_module(emu, "ecs_nat_gateway", name="b-nat", state="absent")
    assert result["failed"] and "tags is required" in result["msg"]
    result = run_module(emu, "ecs_nat_gateway", name="b-nat", tags=TAGS, vpc_id="vpc-1", vswitch_id="vsw-1")
    assert result["failed"] and "eip_allocation_id is required" in result["msg"]
    assert len(emu.calls) == mark


def test_create_idempotent_then_delete(emu, net):
    address = eip(emu, "nat-eip")
    args = dict(name="b-nat", tags=TAGS, vpc_id=net["vpc"], vswitch_id=net["vsw"])
    args["eip_allocation_id"] = address["allocation_id"]

    mark = len(emu.calls)
    predicted = run_module(emu, "ecs_nat_gateway", check=True, **args)
    assert predicted["changed"], predicted
    assert predicted["nat_gateway"]["snat_entry"]["snat_ip"] == address["ip_address"]
    assert writes(emu, mark) == [] and emu.nat_gateways() == []

    made = run_module(emu, "ecs_nat_gateway", **args)
    assert made["changed"], made
    ngw = made["nat_gateway"]
    assert (ngw["status"], ngw["nat_type"], ngw["network_type"]) == ("Available", "Enhanced", "internet")
    assert (ngw["vpc_id"], ngw["vswitch_id"], ngw["tags"]) == (net["vpc"], net["vsw"], TAGS)
    assert ngw["eip_allocation_ids"] == [address["allocation_id"]]
    entry = ngw["snat_entry"]
    assert (entry["source_vswitch_id"], entry["snat_ip"], entry["status"]) == (
        net["vsw"],
        address["ip_address"],
        "Available",
    )
    # What the emulator holds: one gateway, its EIP InUse by it, one SNAT entry of the vSwitch through that address.
    assert [n["NatGatewayId"] for n in emu.nat_gateways()] == [ngw["nat_gateway_id"]]
    (held,) = [e for e in emu.eips() if e["AllocationId"] == address["allocation_id"]]
    assert (held["InstanceId"], held["InstanceType"], held["Status"]) == (ngw["nat_gateway_id"], "Nat", "InUse")
    assert [(s["SourceVSwitchId"], s["SnatIp"]) for s in emu.snat_entries()] == [(net["vsw"], address["ip_address"])]
    calls = emu.calls[mark:]
    creates = [c for c in calls if c["action"] in ("CreateNatGateway", "AssociateEipAddress", "CreateSnatEntry")]
    assert [c["action"] for c in creates] == ["CreateNatGateway", "AssociateEipAddress", "CreateSnatEntry"]
    assert all(c["params"].get("ClientToken") for c in creates), creates
    (create,) = [c for c in calls if c["action"] == "CreateNatGateway"]
    assert {k: create["params"].get(k) for k in ("NatType", "NetworkType", "InstanceChargeType", "VSwitchId")} == {
        "NatType": "Enhanced",
        "NetworkType": "internet",
        "InstanceChargeType": "PostPaid",
        "VSwitchId": net["vsw"],
    }

    mark = len(emu.calls)
    again = run_module(emu, "ecs_nat_gateway", **args)
    assert not again["changed"] and again["nat_gateway"] == ngw
    assert writes(emu, mark) == []
    assert predicted["nat_gateway"]["snat_entry"]["snat_ip"] == again["nat_gateway"]["snat_entry"]["snat_ip"]

    # Another EIP for the same gateway: the SNAT entry is not rewritten, refused before any write.
    other = eip(emu, "nat-eip-2")
    mark = len(emu.calls)
    refused = run_module(emu, "ecs_nat_gateway", **dict(args, eip_allocation_id=other["allocation_id"]))
    assert refused["failed"] and "not rewritten" in refused["msg"], refused
    assert writes(emu, mark) == []

    # Another cluster's tags: not this gateway.
    theirs = run_module(emu, "ecs_nat_gateway", name="b-nat", tags={"managed-by": "someone"}, state="absent")
    assert not theirs["changed"] and len(emu.nat_gateways()) == 1

    mark = len(emu.calls)
    predicted = run_module(emu, "ecs_nat_gateway", check=True, name="b-nat", tags=TAGS, state="absent")
    assert predicted["changed"] and writes(emu, mark) == [] and len(emu.nat_gateways()) == 1

    gone = run_module(emu, "ecs_nat_gateway", name="b-nat", tags=TAGS, state="absent")
    assert gone["changed"] and gone["nat_gateway"] == {}, gone
    assert gone["diff"]["before"]["snat_entry"]["snat_ip"] == address["ip_address"]
    assert emu.nat_gateways() == [] and emu.snat_entries() == []
    # The EIPs stay allocated (ecs_eip releases them), no longer associated.
    assert {e["AllocationId"]: (e["InstanceId"], e["Status"]) for e in emu.eips()} == {
        address["allocation_id"]: ("", "Available"),
        other["allocation_id"]: ("", "Available"),
    }
    assert not run_module(emu, "ecs_nat_gateway", name="b-nat", tags=TAGS, state="absent")["changed"]
    for name in ("nat-eip", "nat-eip-2"):
        assert run_module(emu, "ecs_eip", name=name, tags=TAGS, state="absent")["changed"]


def test_an_eip_of_an_instance_is_not_taken(emu, net):
    """An EIP associated with something else fails the task: it is not moved."""
    address = eip(emu, "busy-eip")
    first = run_module(
        emu, "ecs_nat_gateway", name="first-nat", tags=TAGS, vpc_id=net["vpc"], vswitch_id=net["vsw"],
        eip_allocation_id=address["allocation_id"],
    )  # fmt: skip
    assert first["changed"], first
    second = run_module(
        emu, "ecs_nat_gateway", name="second-nat", tags=TAGS, vpc_id=net["vpc"], vswitch_id=net["vsw"],
        eip_allocation_id=address["allocation_id"],
    )  # fmt: skip
    assert second["failed"] and "is associated with %s" % first["nat_gateway"]["nat_gateway_id"] in second["msg"]
    # Refused before any write: no second gateway was made.
    assert [n["Name"] for n in emu.nat_gateways()] == ["first-nat"]
    assert run_module(emu, "ecs_nat_gateway", name="first-nat", tags=TAGS, state="absent")["changed"]
    assert emu.nat_gateways() == []
    assert run_module(emu, "ecs_eip", name="busy-eip", tags=TAGS, state="absent")["changed"]


def test_a_gateway_in_another_vswitch_is_not_moved(emu, net):
    address = eip(emu, "moved-eip")
    args = dict(name="moved-nat", tags=TAGS, vpc_id=net["vpc"], vswitch_id=net["vsw"])
    assert run_module(emu, "ecs_nat_gateway", eip_allocation_id=address["allocation_id"], **args)["changed"]
    moved = run_module(
        emu, "ecs_nat_gateway", eip_allocation_id=address["allocation_id"], **dict(args, vswitch_id="vsw-elsewhere")
    )
    assert moved["failed"] and moved["msg"].startswith("vswitch_id:") and "not moved" in moved["msg"]
    assert run_module(emu, "ecs_nat_gateway", name="moved-nat", tags=TAGS, state="absent")["changed"]
    assert run_module(emu, "ecs_eip", name="moved-eip", tags=TAGS, state="absent")["changed"]
