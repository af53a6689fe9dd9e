"""scc.training.ecs_host_keys against the emulator: the keys each console printed (cloud-init's block,
GetInstanceConsoleOutput) written to a known_hosts file; a wait for consoles that show none yet, with a limit."""

from __future__ import annotations

import pytest

from lab.cloud.store import Timings
from lab.cloud.testing import emulator
from tests.cloud_helpers import ZONE, run_module


@pytest.fixture
def cloud():
    """A VPC, vSwitch and security group; the consoles show the host keys 0.5 s after Running."""
    with emulator(timings=Timings(instance_pending=0.05, instance_starting=0.05, console_keys=0.5)) as emu:
        vpc = run_module(emu, "ecs_vpc", name="hk-vpc", cidr_block="192.168.0.0/16")["vpc"]["vpc_id"]
        sw = run_module(emu, "ecs_vswitch", name="hk-vsw", vpc_id=vpc, zone_id=ZONE, cidr_block="192.168.0.0/24")
        sg = run_module(emu, "ecs_security_group", name="hk-sg", vpc_id=vpc, tags={"managed-by": "scc.training"})
        yield emu, sw["vswitch"]["vswitch_id"], sg["security_group"]["security_group_id"]
        assert emu.internal_errors == []


def instances(emu, vswitch, sg, count, name="hk-node"):
    result = run_module(
        emu,
        "ecs_instance",
        name=name,
        count=count,
        instance_type="ecs.g7.8xlarge",
        image_id="aliyun_3_x64_20G_alibase_20250101.vhd",
        vswitch_id=vswitch,
        security_group_id=sg,
        tags={"managed-by": "scc.training"},
    )
    assert not result.get("failed"), result
    return result["instances"]


def lines_of(emu, inst):
    address = inst["private_ip_addresses"][0]
    keys = emu.store.instances[inst["instance_id"]]["_host_keys"]
    return ["%s,%s %s" % (address, inst["instance_id"], " ".join(k.split()[:2])) for k in keys]


def test_keys_from_the_consoles_then_nothing_to_do(cloud, tmp_path):
    emu, vswitch, sg = cloud
    nodes = instances(emu, vswitch, sg, 2)
    path = tmp_path / "ssh" / "known_hosts"
    ids = [n["instance_id"] for n in nodes]
    check = run_module(emu, "ecs_host_keys", check=True, instance_ids=ids, path=str(path), wait_timeout=30)
    assert check["changed"] and not path.exists()  # check mode reads the consoles, writes nothing
    emu.store.timings.console_keys = 2.0  # from now on, a new console shows no key for 2 s
    nodes = instances(emu, vswitch, sg, 2, name="hk-late")
    ids = [n["instance_id"] for n in nodes]
    mark = len(emu.calls)
    result = run_module(emu, "ecs_host_keys", instance_ids=ids, path=str(path), wait_timeout=30)
    reads = [c["action"] for c in emu.calls[mark:]].count("GetInstanceConsoleOutput")
    assert reads > 2 and result["waits"][0]["ready"]  # read before cloud-init printed them: waited, then ready
    assert result["changed"] and [h["from_console"] for h in result["hosts"]] == [True, True]
    assert path.read_text().splitlines() == [line for n in nodes for line in sorted(lines_of(emu, n))]
    assert oct(path.stat().st_mode & 0o777) == "0o600" and oct(path.parent.stat().st_mode & 0o777) == "0o700"
    mark = len(emu.calls)
    again = run_module(emu, "ecs_host_keys", instance_ids=ids, path=str(path), wait_timeout=30)
    assert not again["changed"] and [h["from_console"] for h in again["hosts"]] == [False, False]
    assert [c["action"] for c in emu.calls[mark:]] == ["DescribeInstances"]

    # One node left: the other's lines go (the file belongs to the instances given).
    one = run_module(emu, "ecs_host_keys", instance_ids=ids[:1], path=str(path), wait_timeout=30)
    assert one["changed"] and path.read_text().splitlines() == sorted(lines_of(emu, nodes[0]))


def test_a_console_without_keys_fails_after_the_limit_naming_the_instance(cloud, tmp_path):
    emu, vswitch, sg = cloud
    emu.store.timings.console_keys = 3600  # cloud-init never gets there within the test
    [node] = instances(emu, vswitch, sg, 1, name="hk-slow")
    path = tmp_path / "known_hosts"
    result = run_module(emu, "ecs_host_keys", instance_ids=[node["instance_id"]], path=str(path), wait_timeout=1)
    assert result["failed"] and result["pending"] == [node["instance_id"]]
    assert "no SSH host keys on the console of %s after 1s" % node["instance_id"] in result["msg"]
    assert "cloud-init has not printed them yet" in result["msg"] and not path.exists()


def test_an_unknown_instance_is_refused(cloud, tmp_path):
    emu = cloud[0]
    result = run_module(emu, "ecs_host_keys", instance_ids=["i-nothere000000000000"], path=str(tmp_path / "k"))
    assert result["failed"] and result["msg"] == "instance_ids: no such instance: i-nothere000000000000"


def test_a_lab_backed_instance_prints_its_lab_hosts_keys(tmp_path):
    """The emulator's console of an instance a lab host backs prints that host's keys (emu.store.host_keys), so a
    known_hosts file made from it lets ssh reach the lab host with strict checking."""
    key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl"
    with emulator(timings=Timings(instance_pending=0.05, instance_starting=0.05), host_addresses=["127.0.9.99"]) as emu:
        emu.store.host_keys["127.0.9.99"] = [key + " root@node1"]
        vpc = run_module(emu, "ecs_vpc", name="hk-vpc", cidr_block="192.168.0.0/16")["vpc"]["vpc_id"]
        sw = run_module(emu, "ecs_vswitch", name="hk-vsw", vpc_id=vpc, zone_id=ZONE, cidr_block="192.168.0.0/24")
        sg = run_module(emu, "ecs_security_group", name="hk-sg", vpc_id=vpc, tags={"managed-by": "scc.training"})
        [node] = instances(emu, sw["vswitch"]["vswitch_id"], sg["security_group"]["security_group_id"], 1)
        path = tmp_path / "known_hosts"
        result = run_module(emu, "ecs_host_keys", instance_ids=[node["instance_id"]], path=str(path), wait_timeout=30)
        assert result["changed"] and path.read_text() == "127.0.9.99,%s %s\n" % (node["instance_id"], key)
        assert emu.internal_errors == []
