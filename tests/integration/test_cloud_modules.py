"""The Alibaba Cloud modules against the offline emulator (lab/cloud), through the real SDK.

Each module runs in-process the way Ansible runs it: its arguments go in through the module
argument channel (ansible.module_utils.testing.patch_module_args), it prints its JSON result and
exits. Per module: create, re-run unchanged, check mode, delete, re-delete. Then the fault
injection figure and bad inputs that must fail before any API write.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import random
import secrets

import pytest

from ansible.module_utils.testing import patch_module_args

from lab.cloud.faults import RandomFaults
from lab.cloud.server import CloudEmulator
from lab.cloud.store import Timings

REGION = "cn-shanghai"
ZONE = "cn-shanghai-b"
OURS = {"managed-by": "scc.training", "test": "cloud"}
WRITE_PREFIXES = ("Create", "Delete", "Run", "Authorize", "Revoke", "Modify", "Start", "Stop")
FAST = Timings(vpc=0.05, instance_pending=0.1, instance_starting=0.1, file_system=0.3, mount_target=0.1)


@pytest.fixture(scope="module")
def emu():
    with CloudEmulator(port=0, access_key_id="LTAI" + secrets.token_hex(8), access_key_secret=secrets.token_hex(15),
                       timings=FAST) as emulator:
        yield emulator


def run_module(emu, module_name, check=False, diff=True, **args):
    """Run scc.training.<name> like Ansible: args in, one JSON result out. Returns the result."""
    module = importlib.import_module("ansible_collections.scc.training.plugins.modules." + module_name)
    args = {
        "access_key": emu.access_key_id,
        "secret_key": emu.access_key_secret,
        "region": REGION,
        "ecs_endpoint": emu.endpoint,
        "nas_endpoint": emu.endpoint,
        "_ansible_check_mode": check,
        "_ansible_diff": diff,
        **args,
    }
    out = io.StringIO()
    with patch_module_args(args), contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        module.main()
    return json.loads(out.getvalue())


def writes(emu, since):
    return [c["action"] for c in emu.calls[since:] if c["action"].startswith(WRITE_PREFIXES)]


def cycle(emu, name, present, absent, key):
    """create -> re-run (no change) -> check mode (no change, no write) -> delete -> re-delete."""
    first = run_module(emu, name, **present)
    assert first["changed"] is True and not first.get("failed"), first
    assert first[key], first
    again = run_module(emu, name, **present)
    assert again["changed"] is False and again[key] == first[key], again
    mark = len(emu.calls)
    checked = run_module(emu, name, check=True, **present)
    assert checked["changed"] is False and writes(emu, mark) == []
    predicted = run_module(emu, name, check=True, **absent)
    assert predicted["changed"] is True and writes(emu, mark) == []
    gone = run_module(emu, name, **absent)
    assert gone["changed"] is True, gone
    assert run_module(emu, name, **absent)["changed"] is False
    assert run_module(emu, name, check=True, **absent)["changed"] is False
    return first


def test_vpc_and_vswitch_cycle(emu):
    vpc_args = dict(name="t-vpc", cidr_block="192.168.0.0/16", description="managed-by=scc.training")
    created = cycle(emu, "ecs_vpc", vpc_args, dict(name="t-vpc", state="absent"), "vpc")
    assert created["vpc"]["status"] == "Available" and created["vpc"]["cidr_block"] == "192.168.0.0/16"
    assert created["diff"]["before"] == {} and created["diff"]["after"]["vpc_id"] == created["vpc"]["vpc_id"]
    assert [v["VpcId"] for v in emu.vpcs() if v["VpcName"] == "t-vpc"] == []

    vpc = run_module(emu, "ecs_vpc", **vpc_args)["vpc"]
    vsw_args = dict(name="t-vsw", vpc_id=vpc["vpc_id"], zone_id=ZONE, cidr_block="192.168.1.0/24")
    vsw = cycle(emu, "ecs_vswitch", vsw_args, dict(name="t-vsw", vpc_id=vpc["vpc_id"], state="absent"), "vswitch")
    assert vsw["vswitch"]["zone_id"] == ZONE and vsw["vswitch"]["status"] == "Available"
    assert run_module(emu, "ecs_vpc", name="t-vpc", state="absent")["changed"] is True


def test_recreate_after_delete_gets_a_new_resource(emu):
    """A ClientToken keeps naming what it made: a re-create after a delete must still create."""
    args = dict(name="t-again", cidr_block="10.0.0.0/16")
    first = run_module(emu, "ecs_vpc", **args)["vpc"]["vpc_id"]
    run_module(emu, "ecs_vpc", name="t-again", state="absent")
    second = run_module(emu, "ecs_vpc", **args)
    assert second["changed"] is True and second["vpc"]["vpc_id"] != first
    assert [v["VpcId"] for v in emu.vpcs() if v["VpcName"] == "t-again"] == [second["vpc"]["vpc_id"]]
    run_module(emu, "ecs_vpc", name="t-again", state="absent")


@pytest.mark.parametrize(
    "name,args,option",
    [
        ("ecs_vpc", dict(name="t-bad", cidr_block="8.8.8.0/24"), "cidr_block"),
        ("ecs_vswitch", dict(name="t-bad", vpc_id="vpc-x", zone_id=ZONE, cidr_block="10.1.0.0/33"), "cidr_block"),
    ],
)
def test_bad_input_fails_before_any_api_call(emu, name, args, option):
    mark = len(emu.calls)
    result = run_module(emu, name, **args)
    assert result["failed"] is True and option in result["msg"]
    assert emu.calls[mark:] == []


def test_vswitch_outside_the_vpc_fails_before_any_write(emu):
    vpc = run_module(emu, "ecs_vpc", name="t-vpc2", cidr_block="172.16.0.0/16")["vpc"]
    mark = len(emu.calls)
    result = run_module(emu, "ecs_vswitch", name="t-out", vpc_id=vpc["vpc_id"], zone_id=ZONE, cidr_block="10.9.0.0/24")
    assert result["failed"] is True and "cidr_block 10.9.0.0/24 is not inside" in result["msg"]
    assert writes(emu, mark) == []
    run_module(emu, "ecs_vpc", name="t-vpc2", state="absent")


def test_api_error_reports_code_message_and_request_id(emu):
    result = run_module(emu, "ecs_vpc", name="t-vpc", cidr_block="10.0.0.0/16", region="xx-nowhere-1")
    assert result["failed"] is True
    assert result["error"]["code"] == "InvalidRegionId.NotFound"
    assert result["error"]["request_id"] and result["error"]["request_id"] in result["msg"]


def test_wrong_secret_is_a_clear_error_not_a_retry(emu):
    mark = len(emu.calls)
    result = run_module(emu, "ecs_vpc", name="t-vpc", cidr_block="10.0.0.0/16", secret_key="not-the-secret")
    assert result["failed"] is True
    assert result["error"]["code"] in ("SignatureDoesNotMatch", "InvalidAccessKeySecret")
    assert len(emu.calls) - mark == 1


def test_transient_faults_are_retried_for_every_action(emu):
    for kind in ("throttling", "unavailable", "internal", "drop_before", "drop_after"):
        emu.inject(kind, action="CreateVpc")
        result = run_module(emu, "ecs_vpc", name="t-fault", cidr_block="10.2.0.0/16")
        assert result["changed"] is True, (kind, result)
        assert len([v for v in emu.vpcs() if v["VpcName"] == "t-fault"]) == 1, kind
        emu.inject(kind, action="DeleteVpc")
        assert run_module(emu, "ecs_vpc", name="t-fault", state="absent")["changed"] is True, kind
        assert [v for v in emu.vpcs() if v["VpcName"] == "t-fault"] == [], kind
