"""The shipped example files, exactly as they are, walked against the offline emulator (issue 34, point 5):
provision.yml -e @inventories/cloud/cloud.example.yml -> ansible-inventory -i inventories/cloud/example.ecs.yml (every
node in scc_cluster, ssh trusting the known_hosts file only) -> that file filled with each node's host keys, read from
its console before any connection (point 4) -> teardown.yml with the same file leaves nothing.

Nothing is copied or edited: the endpoints and the region come from the environment (the examples leave the endpoints
empty, which falls back to ALIBABA_CLOUD_*_ENDPOINT), HOME is a temporary directory (the examples' known_hosts file
is ~/.ssh/scc-bert.known_hosts). One emulator, no host to converge: the consoles print keys the emulator made.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess

import pytest
import yaml

from lab.cloud.store import Timings
from lab.cloud.testing import emulator
from tests.cloud_helpers import ROOT, playbook_env, recap, run_ansible, run_playbook

EXAMPLES = ROOT / "inventories" / "cloud"
VARS = EXAMPLES / "cloud.example.yml"
INVENTORY = EXAMPLES / "example.ecs.yml"


@pytest.fixture(scope="module")
def walk(tmp_path_factory):
    home = tmp_path_factory.mktemp("home")
    settings = yaml.safe_load(VARS.read_text())
    # console_keys: the consoles show the host keys a second after Running (tests/integration/test_cloud_host_keys.py
    # proves the wait itself).
    timings = Timings(
        vpc=0.05, instance_pending=0.2, instance_starting=0.2, file_system=0.3, mount_target=0.1, console_keys=1.0
    )
    with emulator(timings=timings) as emu:
        env = playbook_env(emu)
        # HOME moved: the async job files (cloud_wait's background waits) named absolutely, as ~ is expanded on both
        # sides of a job by different means.
        env.update(
            HOME=str(home),
            ANSIBLE_ASYNC_DIR=str(home.parent / (home.name + "-async")),
            ALIBABA_CLOUD_REGION_ID=settings["scc_cloud_region"],
        )
        env.update({"ALIBABA_CLOUD_%s_ENDPOINT" % api: emu.endpoint for api in ("ECS", "NAS", "VPC", "CS")})
        yield dict(emu=emu, env=env, home=home, settings=settings)
        assert emu.internal_errors == []


def plain(value):
    """ansible-inventory --list marks data from the API as untrusted: {"__ansible_unsafe": v}."""
    if isinstance(value, dict):
        if set(value) == {"__ansible_unsafe"}:
            return value["__ansible_unsafe"]
        return {k: plain(v) for k, v in value.items()}
    return value


def test_the_examples_walk_from_provision_to_teardown(walk):
    emu, env, home, settings = walk["emu"], walk["env"], walk["home"], walk["settings"]
    name = settings["scc_cloud_name"]
    rc, out = run_playbook(env, "provision.yml", str(VARS))
    assert rc == 0, out[-4000:]
    nodes = sorted(
        (i for i in emu.store.instances.values() if i["InstanceName"] == name + "-node"), key=lambda i: i["InstanceId"]
    )
    assert len(nodes) == settings["scc_cloud_instance_count"] == 2
    assert {i["InstanceType"] for i in nodes} == {settings["scc_cloud_instance_type"]}

    # The inventory: every node, by the cluster's tags, whatever its family; ssh trusts the console's keys only.
    known_hosts = home / ".ssh" / ("scc-%s.known_hosts" % name)
    inv = run_ansible(env, "ansible-inventory", "-i", str(INVENTORY), "--list", timeout=120)
    assert inv.returncode == 0, inv.stderr
    data = json.loads(inv.stdout)
    assert sorted(data["scc_cluster"]["hosts"]) == [i["InstanceId"] for i in nodes]
    for inst in nodes:
        hv = plain(data["_meta"]["hostvars"][inst["InstanceId"]])
        assert hv["ansible_host"] == inst["VpcAttributes"]["PrivateIpAddress"]["IpAddress"][0]
        assert hv["ansible_ssh_common_args"] == ("-o UserKnownHostsFile=%s -o StrictHostKeyChecking=yes" % known_hosts)

    # known_hosts: each node's keys as its console printed them, under its address and ID, found by ssh-keygen -F.
    assert stat.S_IMODE(known_hosts.stat().st_mode) == 0o600
    lines = known_hosts.read_text().splitlines()
    want = sorted(
        "%s,%s %s" % (i["VpcAttributes"]["PrivateIpAddress"]["IpAddress"][0], i["InstanceId"], " ".join(k.split()[:2]))
        for i in nodes
        for k in i["_host_keys"]
    )
    assert sorted(lines) == want and len(want) == 4
    for inst in nodes:
        address = inst["VpcAttributes"]["PrivateIpAddress"]["IpAddress"][0]
        found = subprocess.run(
            ["ssh-keygen", "-F", address, "-f", str(known_hosts)], capture_output=True, text=True, check=False
        )
        assert found.returncode == 0 and found.stdout.count("found: line") == 2, found.stdout
    assert [c["action"] for c in emu.calls].count("GetInstanceConsoleOutput") >= len(nodes)

    # Again: nothing changes, and the consoles are not read again (trust is kept, not renewed).
    mark = len(emu.calls)
    rc, out = run_playbook(env, "provision.yml", str(VARS))
    assert rc == 0 and recap(out)["changed"] == 0, out[-3000:]
    assert [c for c in emu.calls[mark:] if c["action"] == "GetInstanceConsoleOutput"] == []

    rc, out = run_playbook(env, "teardown.yml", str(VARS))
    assert rc == 0, out[-4000:]
    for table in ("instances", "file_systems", "mount_targets", "protocol_services", "security_groups", "vswitches"):
        assert getattr(emu.store, table) == {}, table
    assert emu.store.vpcs == {}
    assert not known_hosts.exists()
    assert os.listdir(home / ".ssh") == []


def test_a_network_given_by_id_is_used_and_never_deleted(walk, tmp_path):
    """Issue 34, point 3 (c): scc_cloud_vpc_id, scc_cloud_vswitch_id and scc_cloud_security_group_id name an existing
    network: provision.yml looks each up, makes none, puts the nodes in it; teardown.yml deletes what it made only."""
    emu, env = walk["emu"], walk["env"]
    from ansible_collections.scc.training.plugins.module_utils._alicloud import AlicloudApi

    api = AlicloudApi(
        emu.access_key_id, emu.access_key_secret, "cn-shanghai", ecs_endpoint=emu.endpoint, vpc_endpoint=emu.endpoint
    )
    vpc = api.call("vpc", "CreateVpc", {"VpcName": "theirs", "CidrBlock": "172.16.0.0/16", "Description": "production"})
    vpc_id = vpc["VpcId"]
    sw = api.call(
        "vpc",
        "CreateVSwitch",
        {"VpcId": vpc_id, "ZoneId": "cn-shanghai-b", "CidrBlock": "172.16.1.0/24", "VSwitchName": "theirs"},
    )
    sg = api.call("ecs", "CreateSecurityGroup", {"VpcId": vpc_id, "SecurityGroupName": "theirs"})
    given = dict(
        scc_cloud_name="byid",
        scc_cloud_tags={"managed-by": "scc.training", "scc-cluster": "byid"},
        scc_cloud_vpc_id=vpc_id,
        scc_cloud_vswitch_id=sw["VSwitchId"],
        scc_cloud_security_group_id=sg["SecurityGroupId"],
        scc_cloud_vswitch_cidr="172.16.1.0/24",
        scc_cloud_vpc_cidr="172.16.0.0/16",
        scc_cloud_cpfs_enabled=False,
        scc_cloud_instance_count=1,
    )
    extra = tmp_path / "byid.yml"
    extra.write_text(yaml.safe_dump(given))
    network = {t: set(getattr(emu.store, t)) for t in ("vpcs", "vswitches", "security_groups")}

    def writes_since(mark):
        return [c["action"] for c in emu.calls[mark:] if c["action"].startswith(("Create", "Delete", "Run"))]

    # An ID that names nothing: refused naming the variable, nothing made.
    mark = len(emu.calls)
    rc, out = run_playbook(
        env, "provision.yml", str(VARS), "-e", "@%s" % extra, "-e", "scc_cloud_vswitch_id=vsw-nothere"
    )
    assert rc != 0 and "scc_cloud_vswitch_id: no VSwitch vsw-nothere in VPC %s" % vpc_id in out, out[-3000:]
    assert writes_since(mark) == []
    # A VSwitch without its VPC: refused before any API call.
    mark = len(emu.calls)
    rc, out = run_playbook(env, "provision.yml", str(VARS), "-e", "@%s" % extra, "-e", "scc_cloud_vpc_id=")
    assert rc != 0 and "needs scc_cloud_vpc_id" in out and len(emu.calls) == mark, out[-3000:]

    rc, out = run_playbook(env, "provision.yml", str(VARS), "-e", "@%s" % extra)
    assert rc == 0, out[-4000:]
    assert {t: set(getattr(emu.store, t)) for t in network} == network  # nothing made
    [node] = [i for i in emu.store.instances.values() if i["InstanceName"] == "byid-node"]
    assert node["VpcAttributes"]["VSwitchId"] == sw["VSwitchId"]
    assert node["SecurityGroupIds"]["SecurityGroupId"] == [sg["SecurityGroupId"]]

    rc, out = run_playbook(env, "teardown.yml", str(VARS), "-e", "@%s" % extra)
    assert rc == 0, out[-4000:]
    assert [i for i in emu.store.instances.values() if i["InstanceName"] == "byid-node"] == []
    assert {t: set(getattr(emu.store, t)) for t in network} == network  # theirs: all still there
