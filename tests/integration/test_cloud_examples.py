"""The shipped example files, exactly as they are, walked against the offline emulator (issue 34, point 5):
provision.yml -e @inventories/cloud/cloud.example.yml -> ansible-inventory -i inventories/cloud/example.ecs.yml (every
node in scc_cluster, ssh trusting the known_hosts file only) -> that file filled with each node's host keys, read from
its console before any connection (point 4) -> teardown.yml with the same file leaves nothing.

Nothing is copied or edited: the endpoints and the region come from the environment (the examples leave the endpoints
empty, which falls back to ALIBABA_CLOUD_*_ENDPOINT), HOME is a temporary directory (the examples' known_hosts file
is ~/.ssh/scc-bert.known_hosts). One emulator, no host to converge: the consoles print keys the emulator made.
"""

from __future__ import annotations

import ipaddress
import json
import os
import shlex
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


BASTION_VARS = EXAMPLES / "cloud.bastion.example.yml"


def ssh_config(args, host):
    """What ssh makes of ``args`` for ``host`` (ssh -G prints the configuration it would use; it connects nowhere)."""
    out = subprocess.run(["ssh", "-G", *shlex.split(args), host], capture_output=True, text=True, check=True).stdout
    return dict(line.split(" ", 1) for line in out.splitlines() if " " in line)


def test_the_bastion_example_walks_from_provision_to_teardown(walk):
    """Issue 34.3 (b) and 5: cloud.example.yml with cloud.bastion.example.yml on top, the shipped files as they are:
    provision.yml makes the bastion (its own security group, SSH from scc_cloud_admin_cidrs only), its EIP (a loopback
    address in the emulator) and the nodes taking SSH from the bastion only -> ansible-inventory: the bastion in
    scc_bastion at its EIP, every node through it with strict host key checking on both hops -> known_hosts holds the
    bastion's console keys under its EIP -> a re-run changes nothing -> provision.yml with scc_cloud_access: vpc
    releases the bastion -> teardown.yml leaves nothing of the cluster."""
    emu, env, home, settings = walk["emu"], walk["env"], walk["home"], walk["settings"]
    name = settings["scc_cloud_name"]
    extra = yaml.safe_load(BASTION_VARS.read_text())
    assert extra["scc_cloud_access"] == "bastion"
    theirs = {t: set(getattr(emu.store, t)) for t in ("vpcs", "vswitches", "security_groups")}
    rc, out = run_playbook(env, "provision.yml", str(VARS), "-e", "@%s" % BASTION_VARS)
    assert rc == 0, out[-4000:]

    [bastion] = [i for i in emu.instances() if i["InstanceName"] == name + "-bastion"]
    nodes = sorted((i for i in emu.instances() if i["InstanceName"] == name + "-node"), key=lambda i: i["InstanceId"])
    assert len(nodes) == 2 and bastion["InstanceType"] == extra["scc_cloud_bastion_instance_type"]
    assert bastion["Tags"]["Tag"] and {"TagKey": "scc-role", "TagValue": "bastion"} in bastion["Tags"]["Tag"]
    assert bastion["VpcAttributes"]["VSwitchId"] == nodes[0]["VpcAttributes"]["VSwitchId"]
    [eip] = emu.eips()
    assert eip["InstanceId"] == bastion["InstanceId"] and eip["Status"] == "InUse"
    assert ipaddress.ip_address(eip["IpAddress"]).is_loopback  # the lab's network rule: never a public address
    groups = {g["SecurityGroupName"]: g for g in emu.security_groups()}
    bastion_sg, node_sg = groups[name + "-bastion-sg"], groups[name + "-sg"]
    assert bastion["SecurityGroupIds"]["SecurityGroupId"] == [bastion_sg["SecurityGroupId"]]
    assert nodes[0]["SecurityGroupIds"]["SecurityGroupId"] == [node_sg["SecurityGroupId"]]
    # SSH to the bastion from the admin networks only; to the nodes from the bastion only.
    assert [
        (r["IpProtocol"].lower(), r["PortRange"], r["SourceCidrIp"]) for r in bastion_sg["Permissions"]["Permission"]
    ] == [("tcp", "22/22", cidr) for cidr in extra["scc_cloud_admin_cidrs"]]
    bastion_ip = bastion["VpcAttributes"]["PrivateIpAddress"]["IpAddress"][0]
    ssh_sources = {r["SourceCidrIp"] for r in node_sg["Permissions"]["Permission"] if r["PortRange"] == "22/22"}
    assert ssh_sources == {bastion_ip + "/32"}

    known_hosts = home / ".ssh" / ("scc-%s.known_hosts" % name)
    inv = run_ansible(env, "ansible-inventory", "-i", str(INVENTORY), "--list", timeout=120)
    assert inv.returncode == 0, inv.stderr
    data = json.loads(inv.stdout)
    assert data["scc_bastion"]["hosts"] == [bastion["InstanceId"]]
    assert sorted(data["scc_cluster"]["hosts"]) == [i["InstanceId"] for i in nodes]
    jump = plain(data["_meta"]["hostvars"][bastion["InstanceId"]])
    assert jump["ansible_host"] == eip["IpAddress"]
    for inst in nodes:
        hv = plain(data["_meta"]["hostvars"][inst["InstanceId"]])
        config = ssh_config(hv["ansible_ssh_common_args"], hv["ansible_host"])
        assert config["stricthostkeychecking"] == "true" and config["userknownhostsfile"] == str(known_hosts)
        proxy = shlex.split(config["proxycommand"])
        assert proxy[-1] == "root@" + eip["IpAddress"], proxy
        assert "UserKnownHostsFile=%s" % known_hosts in proxy and "StrictHostKeyChecking=yes" in proxy
    # The bastion's keys, from its console, under its private address, its EIP and its ID; ssh finds them at the EIP.
    lines = known_hosts.read_text().splitlines()
    names = "%s,%s,%s" % (bastion_ip, eip["IpAddress"], bastion["InstanceId"])
    assert sorted(line for line in lines if line.startswith(names + " ")) == sorted(
        "%s %s" % (names, " ".join(k.split()[:2])) for k in emu.store.instances[bastion["InstanceId"]]["_host_keys"]
    )
    found = subprocess.run(
        ["ssh-keygen", "-F", eip["IpAddress"], "-f", str(known_hosts)], capture_output=True, text=True, check=False
    )
    assert found.returncode == 0 and found.stdout.count("found: line") == 2, found.stdout

    rc, out = run_playbook(env, "provision.yml", str(VARS), "-e", "@%s" % BASTION_VARS)
    assert rc == 0 and recap(out)["changed"] == 0, out[-3000:]

    [rule] = [r for r in node_sg["Permissions"]["Permission"] if r["PortRange"] == "22/22"]
    assert rule["Description"] == "SSH from %s-bastion (scc.training)" % name  # what tells a later run it is ours
    # A rule of the user's own in the nodes' group (with a description of its own): no business of provision's.
    from ansible_collections.scc.training.plugins.module_utils._alicloud import AlicloudApi

    api = AlicloudApi(emu.access_key_id, emu.access_key_secret, settings["scc_cloud_region"], ecs_endpoint=emu.endpoint)
    theirs_rule = {"IpProtocol": "tcp", "PortRange": "8888/8888", "SourceCidrIp": "10.1.0.0/16", "Description": "mine"}
    api.call(
        "ecs", "AuthorizeSecurityGroup", {"SecurityGroupId": node_sg["SecurityGroupId"], "Permissions": [theirs_rule]}
    )

    # Back to scc_cloud_access: vpc (the example alone): the bastion, its EIP and its group are released, and the nodes'
    # SSH rule from the bastion is revoked; SSH comes from scc_cloud_ssh_source_cidr again; the user's rule stays.
    rc, out = run_playbook(env, "provision.yml", str(VARS))
    assert rc == 0, out[-4000:]
    assert [i for i in emu.instances() if i["InstanceName"] == name + "-bastion"] == [] and emu.eips() == []
    groups = {g["SecurityGroupName"]: g for g in emu.security_groups()}
    assert name + "-bastion-sg" not in groups
    rules = {
        (r["IpProtocol"].lower(), r["PortRange"], r["SourceCidrIp"])
        for r in groups[name + "-sg"]["Permissions"]["Permission"]
    }
    assert rules == {
        ("tcp", "22/22", settings["scc_cloud_ssh_source_cidr"]),
        ("all", "-1/-1", settings["scc_cloud_vswitch_cidr"]),
        ("tcp", "8888/8888", "10.1.0.0/16"),
    }, rules

    rc, out = run_playbook(env, "teardown.yml", str(VARS))
    assert rc == 0, out[-4000:]
    assert emu.store.instances == {} and emu.eips() == []
    assert {t: set(getattr(emu.store, t)) for t in theirs} == theirs  # nothing of ours left, nothing of theirs gone
    assert not known_hosts.exists()


def test_teardown_removes_the_bastion_and_its_eip(walk):
    """teardown.yml, whatever scc_cloud_access says, releases the bastion's EIP (unassociated first), the bastion and its
    security group; an EIP of the same name without our tags stays."""
    emu, env, settings = walk["emu"], walk["env"], walk["settings"]
    name = settings["scc_cloud_name"]
    from ansible_collections.scc.training.plugins.module_utils._alicloud import AlicloudApi

    api = AlicloudApi(emu.access_key_id, emu.access_key_secret, "cn-shanghai", vpc_endpoint=emu.endpoint)
    other = api.call("vpc", "AllocateEipAddress", {"Name": name + "-bastion-eip"})["AllocationId"]
    theirs = {t: set(getattr(emu.store, t)) for t in ("vpcs", "vswitches", "security_groups")}
    rc, out = run_playbook(
        env, "provision.yml", str(VARS), "-e", "@%s" % BASTION_VARS, "-e", "scc_cloud_cpfs_enabled=false"
    )
    assert rc == 0, out[-4000:]
    assert len(emu.eips()) == 2
    rc, out = run_playbook(env, "teardown.yml", str(VARS), "-e", "@%s" % BASTION_VARS)
    assert rc == 0, out[-4000:]
    assert [e["AllocationId"] for e in emu.eips()] == [other]  # not ours: no tags
    assert emu.store.instances == {}
    assert {t: set(getattr(emu.store, t)) for t in theirs} == theirs
    api.call("vpc", "ReleaseEipAddress", {"AllocationId": other})
