"""provision.yml -> scc.training.ecs inventory -> teardown.yml against the offline emulator.

As root, the emulator's instances are backed by the hosts of a 3-host lab (127.0.9.11-13): two SCC
nodes and the data-prep ECS; the hosts the inventory plugin finds are then reached over real SSH.

ansible-playbook and ansible-inventory run as a user runs them (subprocesses, credentials in the
environment, the endpoint from the one vars file). Checked: the first provision at -vvvv leaks
no secret; a second run changes nothing; --check on the converged cloud changes nothing and
writes nothing; the inventory plugin finds the nodes with their RDMA addresses and GPU count, and
the data-prep ECS in scc_data_prep only; prepare_imagenet.yml targets it (--list-hosts); provision.yml
with scc_cloud_data_prep_enabled false releases it; teardown deletes everything and then nothing; it refuses to delete what is not ours; bad
variables fail before any API call.

Without lab hosts (fast): a provision.yml stopped midway by a permanent error leaves only resources
marked as ours, a re-run converges to one of each, and teardown.yml, retrying the dependencies the
emulator releases with a lag, deletes them all; docs/ansible-runner.md's example, run as it is,
leaves neither the secret key nor the STS token in any file of its private directory.
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
import sys
import tempfile

import pytest
import yaml

from ansible_collections.scc.training.plugins.module_utils._alicloud import secret_forms
from lab.cloud.store import Timings
from lab.cloud.testing import emulator
from tests.cloud_helpers import (
    ROOT,
    cloud_vars,
    playbook_env,
    recap,
    run_ansible,
    run_module,
    run_playbook,
    writes,
)
from tests.lab_runner import lab_up

LAB_FIRST_ADDRESS = "127.0.9.11"


@pytest.fixture(scope="module")
def lab():
    """Three lab hosts to back the instances, two nodes and the data-prep ECS (root only); None otherwise."""
    if os.geteuid() != 0:
        yield None
        return
    with lab_up(ROOT / ".lab-cloud", 3, LAB_FIRST_ADDRESS) as lab:
        yield lab


@pytest.fixture(scope="module")
def cloud(tmp_path_factory, lab):
    tmp = tmp_path_factory.mktemp("cloud")
    timings = Timings(vpc=0.05, instance_pending=0.2, instance_starting=0.2, file_system=0.5, mount_target=0.1)
    backing = [h.address for h in lab.load()] if lab else None
    with emulator(timings=timings, host_addresses=backing) as emu:
        vars_file = tmp / "cloud.yml"
        settings = cloud_vars(
            emu,
            vars_file,
            scc_cloud_name="pbt",
            scc_cloud_instance_type="ecs.sccgn6.24xlarge",  # RoCE + HPC cluster; the example's ebmgn8v: cpfs-nfs test
            scc_cloud_image_id="m-scc-centos75",
            # The mount-target path; cpfs-nfs (the example's) is test_cloud_protocol_service.py's.
            scc_cloud_cpfs_protocol="cpfs",
            scc_cloud_tags={"managed-by": "scc.training", "scc-cluster": "pbt"},
            scc_cloud_data_prep_enabled=True,
            scc_cloud_data_prep_image_id="aliyun_3_x64_20G_alibase_20250101.vhd",
        )
        inventory = yaml.safe_load((ROOT / "inventories/cloud/example.ecs.yml").read_text())
        inventory.update(
            region=settings["scc_cloud_region"], ecs_endpoint=emu.endpoint, tags=settings["scc_cloud_tags"]
        )
        if lab:  # how the controller reaches lab hosts: the lab's key and pinned host keys
            inventory["compose"].update(
                ansible_ssh_private_key_file=repr(str(lab.key)),
                ansible_ssh_common_args=repr("-o UserKnownHostsFile=%s -o StrictHostKeyChecking=yes" % lab.known_hosts),
                ansible_python_interpreter="'/usr/bin/python3'",
            )
        inventory_file = tmp / "nodes.ecs.yml"
        inventory_file.write_text(yaml.safe_dump(inventory))
        yield dict(
            emu=emu,
            vars_file=vars_file,
            inventory=inventory_file,
            env=playbook_env(emu),
            secret=emu.access_key_secret,
            tmp=tmp,
            settings=settings,
            lab=lab,
        )


def playbook(cloud, name, *extra, vars_file=None):
    return run_playbook(cloud["env"], name, vars_file or cloud["vars_file"], *extra)


def plain(value):
    """ansible-inventory --list marks data from the API as untrusted: {"__ansible_unsafe": v}."""
    if isinstance(value, dict):
        if set(value) == {"__ansible_unsafe"}:
            return value["__ansible_unsafe"]
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def ours(emu, table):
    return list(getattr(emu.store, table).values())


def test_provision_inventory_teardown(cloud):
    emu = cloud["emu"]
    rc, out = playbook(cloud, "provision.yml", "--check")  # on an empty cloud: predicts, writes nothing
    assert rc == 0 and recap(out)["changed"] >= 2 and writes(emu, 0) == [], out[-3000:]
    rc, out = playbook(cloud, "provision.yml", "-vvvv")
    assert rc == 0, out[-4000:]
    assert cloud["secret"] not in out  # -vvvv shows module args: the secret must be masked
    assert recap(out)["changed"] == 9  # 8 resources and the known_hosts file of their host keys
    assert emu.nat_gateways() == [] and emu.eips() == []  # scc_cloud_nat_gateway: off by default, nothing of it
    nodes = [i for i in ours(emu, "instances") if i["InstanceName"] == "pbt-node"]
    assert len(nodes) == 2 and len(ours(emu, "file_systems")) == 1 and len(ours(emu, "mount_targets")) == 1
    [prep] = [i for i in ours(emu, "instances") if i["InstanceName"] == "pbt-prep"]
    assert prep["InstanceType"] == "ecs.g7.8xlarge" and prep["HpcClusterId"] == ""
    assert prep["_tags"] == {"managed-by": "scc.training", "scc-cluster": "pbt", "scc-role": "data-prep"}
    assert prep["VpcAttributes"]["VSwitchId"] == nodes[0]["VpcAttributes"]["VSwitchId"]
    assert prep["SecurityGroupIds"] == nodes[0]["SecurityGroupIds"]

    rc, out = playbook(cloud, "provision.yml")
    assert rc == 0 and recap(out)["changed"] == 0, out[-3000:]
    mark = len(emu.calls)
    rc, out = playbook(cloud, "provision.yml", "--check")
    assert rc == 0 and recap(out)["changed"] == 0, out[-3000:]
    assert writes(emu, mark) == []

    inv = run_ansible(cloud["env"], "ansible-inventory", "-i", str(cloud["inventory"]), "--list", timeout=120)
    assert inv.returncode == 0, inv.stderr
    data = json.loads(inv.stdout)
    hosts = sorted(data["scc_cluster"]["hosts"])
    assert hosts == sorted(i["InstanceId"] for i in nodes)
    assert sorted(data["type_ecs_sccgn6_24xlarge"]["hosts"]) == hosts
    for host in hosts:
        hv = plain(data["_meta"]["hostvars"][host])
        inst = emu.store.instances[host]
        assert hv["ansible_host"] == inst["VpcAttributes"]["PrivateIpAddress"]["IpAddress"][0]
        assert hv["ecs_rdma_ips"] == inst["RdmaIpAddress"]["IpAddress"] and hv["ecs_rdma_ips"]
        assert hv["ecs_gpu_count"] == 8 and hv["ecs_instance_type"] == "ecs.sccgn6.24xlarge"
        assert hv["ansible_user"] == "root"
    # The data-prep ECS: its own group only, never a cluster node (scc_cluster, mpihosts) or a keyed group.
    assert data["scc_data_prep"]["hosts"] == [prep["InstanceId"]]
    assert [g for g, v in data.items() if prep["InstanceId"] in v.get("hosts", [])] == ["scc_data_prep"]
    prep_vars = plain(data["_meta"]["hostvars"][prep["InstanceId"]])
    assert prep_vars["ansible_host"] == prep["VpcAttributes"]["PrivateIpAddress"]["IpAddress"][0]
    assert prep_vars["ecs_gpu_count"] == 0 and prep_vars["ecs_rdma_ips"] == []

    if cloud["lab"]:  # the instances the plugin found are real hosts: reach them over SSH
        assert sorted(
            plain(data["_meta"]["hostvars"][h])["ansible_host"] for h in [*hosts, prep["InstanceId"]]
        ) == sorted(h.address for h in cloud["lab"].load())
        ping = run_ansible(
            cloud["env"], "ansible", "-i", str(cloud["inventory"]), "all", "-m", "ansible.builtin.ping", "-o"
        )
        assert ping.returncode == 0 and ping.stdout.count("SUCCESS") == 3, ping.stdout + ping.stderr

    # prepare_imagenet.yml: on the nodes by default; with imagenet_prep_group=scc_data_prep, CPFS is mounted on the
    # data-prep ECS and the conversion runs there (its conversion itself is test_imagenet_prep.py's, on 127.0.41.x).
    plays = {
        group: list_hosts(cloud, "prepare_imagenet.yml", *(["-e", "imagenet_prep_group=" + group] if group else []))
        for group in ("", "scc_data_prep")
    }
    assert plays[""]["Mount CPFS on the data-prep ECS"] == []
    assert sorted(plays[""]["Convert ImageNet to TFRecord on every node"]) == hosts
    assert plays["scc_data_prep"]["Mount CPFS on the data-prep ECS"] == [prep["InstanceId"]]
    assert plays["scc_data_prep"]["Convert ImageNet to TFRecord on every node"] == [prep["InstanceId"]]
    # Its variables are checked on the hosts that convert, not on the training nodes.
    validate = "Validate every role's variables (no host is contacted)"
    assert (sorted(plays[""][validate]), plays["scc_data_prep"][validate]) == (hosts, [prep["InstanceId"]])

    # Released afterwards: the same vars file with the flag off deletes it alone (and frees its lab host).
    rc, out = playbook(cloud, "provision.yml", "-e", "scc_cloud_data_prep_enabled=false")
    assert rc == 0 and recap(out)["changed"] == 2, out[-3000:]  # released, and its host keys out of known_hosts
    assert [i["InstanceName"] for i in ours(emu, "instances")] == ["pbt-node", "pbt-node"]
    rc, out = playbook(cloud, "provision.yml")  # made again: teardown.yml must find and delete it too
    assert rc == 0 and recap(out)["changed"] == 2, out[-3000:]  # and its host keys read from its console

    rc, out = playbook(cloud, "teardown.yml")
    assert rc == 0, out[-4000:]
    for table in ("instances", "file_systems", "mount_targets", "security_groups", "hpc_clusters", "vswitches", "vpcs"):
        assert ours(emu, table) == [], table
    rc, out = playbook(cloud, "teardown.yml")
    assert rc == 0 and recap(out)["changed"] == 0, out[-3000:]


def list_hosts(cloud, name, *extra):
    """ansible-playbook --list-hosts of playbooks/<name> with the ecs inventory: {play name: [hosts]}."""
    proc = run_ansible(
        cloud["env"],
        "ansible-playbook",
        "-i",
        str(cloud["inventory"]),
        str(ROOT / "playbooks" / name),
        "--list-hosts",
        *extra,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    plays, play = {}, None
    for line in proc.stdout.splitlines():
        if line.startswith("  play #"):  # "  play #4 (<pattern>): <name>\tTAGS: []"
            play = line.split("\t")[0].rsplit("): ", 1)[1]
            plays[play] = []
        elif play and line.startswith("      "):
            plays[play].append(line.strip())
    return plays


def test_teardown_refuses_what_is_not_ours(cloud):
    emu = cloud["emu"]
    # A VPC with our name but made by someone else (no scc.training description).
    from ansible_collections.scc.training.plugins.module_utils._alicloud import AlicloudApi

    api = AlicloudApi(emu.access_key_id, emu.access_key_secret, "cn-shanghai", vpc_endpoint=emu.endpoint)
    api.call("vpc", "CreateVpc", {"VpcName": "pbt-vpc", "CidrBlock": "192.168.0.0/16", "Description": "production"})
    mark = len(emu.calls)
    rc, out = playbook(cloud, "teardown.yml")
    assert rc != 0 and "is not marked as made by scc.training" in out
    assert writes(emu, mark) == []
    assert [v["VpcName"] for v in ours(emu, "vpcs")] == ["pbt-vpc"]
    api.call("vpc", "DeleteVpc", {"VpcId": ours(emu, "vpcs")[0]["VpcId"]})


@pytest.mark.parametrize(
    "change,names",
    [
        ({"scc_cloud_vswitch_cidr": "10.9.0.0/24"}, ["scc_cloud_vswitch_cidr"]),
        (  # the data-prep ECS: no image, a disk too small for ILSVRC2012
            {"scc_cloud_data_prep_image_id": "", "scc_cloud_data_prep_system_disk_size": 100},
            ["scc_cloud_data_prep_image_id", "scc_cloud_data_prep_system_disk_size (100) must be 309 to 2048 GiB"],
        ),
        # count 0 would release every node: refused without the explicit word (issue 27)
        ({"scc_cloud_instance_count": 0}, ["scc_cloud_instance_count is 0", "scc_cloud_release_all_nodes: true"]),
        # a choice the spec (roles/scc_cloud/meta/argument_specs.yml) holds
        ({"scc_cloud_cpfs_protocol": "nfs"}, ["scc_cloud_cpfs_protocol", "cpfs, cpfs-nfs"]),
        # sccgn6 has RoCE, no Elastic RDMA Interface; a subscription needs its period (issue 23)
        ({"scc_cloud_eri_count": 1}, ["scc_cloud_eri_count 1 is more than the 0 Elastic RDMA Interfaces"]),
        ({"scc_cloud_instance_charge_type": "PrePaid"}, ["scc_cloud_period (null) is required with PrePaid"]),
        # issue 34: the host keys wait, the known_hosts file, a network given by ID
        (
            {"scc_cloud_host_keys_timeout": 0},
            ["scc_cloud_host_keys_timeout (0) must be a whole number of seconds, at least 1"],
        ),
        ({"scc_cloud_known_hosts_file": "/tmp/"}, ['scc_cloud_known_hosts_file ("/tmp/") must name a file']),
        ({"scc_cloud_vpc_id": "my-vpc"}, ['scc_cloud_vpc_id ("my-vpc") must be vpc- followed by']),
        (
            {"scc_cloud_security_group_id": "sg-0123"},
            ['scc_cloud_security_group_id ("sg-0123") needs scc_cloud_vpc_id'],
        ),
        # issue 34.3: the nodes' way out through a NAT gateway
        ({"scc_cloud_nat_gateway": "maybe"}, ["scc_cloud_nat_gateway"]),
        ({"scc_cloud_nat_bandwidth": 500}, ["scc_cloud_nat_bandwidth (500) must be at most 200"]),
    ],
)
def test_bad_variables_fail_before_any_api_call(cloud, change, names):
    emu = cloud["emu"]
    bad = dict(cloud["settings"], **change)
    bad_file = cloud["tmp"] / "bad.yml"
    bad_file.write_text(yaml.safe_dump(bad))
    mark = len(emu.calls)
    rc, out = playbook(cloud, "provision.yml", vars_file=bad_file)
    assert rc != 0 and all(name in out for name in names), out[-3000:]
    assert emu.calls[mark:] == []


def test_secret_given_as_a_module_option_stays_out_of_vvvv_output(cloud):
    """The provision run above takes the secret from the environment; here it is a module option."""
    emu = cloud["emu"]
    args = json.dumps(
        dict(access_key=emu.access_key_id, secret_key=cloud["secret"], region="cn-shanghai", ecs_endpoint=emu.endpoint)
    )
    env = {k: v for k, v in cloud["env"].items() if not k.startswith("ALIBABA_CLOUD_")}
    interpreter = "ansible_python_interpreter=%s" % sys.executable
    module = ("-m", "scc.training.ecs_instance_info", "-a", args)
    proc = run_ansible(
        env, "ansible", "localhost", "-c", "local", "-i", "localhost,", "-vvvv", "-e", interpreter, *module
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-3000:]  # the secret reached the API: the signed call succeeded
    assert "secret_key: VALUE_SPECIFIED_IN_NO_LOG_PARAMETER" in out  # -vvvv printed the module args, masked
    assert cloud["secret"] not in out


# ---- without lab hosts ------------------------------------------------------------------------
QUICK = Timings(vpc=0.02, instance_pending=0.05, instance_starting=0.05, file_system=0.1, protocol_service=0.05)
TAGS = {"managed-by": "scc.training", "scc-cluster": "pfail"}
MARKER = "managed-by=scc.training scc-cluster=pfail"
# Resources the API tags at creation, and those it cannot tag, which carry MARKER as description instead.
TAGGED = ("security_groups", "instances", "file_systems")
MARKED = ("vpcs", "vswitches", "hpc_clusters")


def counts(emu):
    tables = (*TAGGED, *MARKED, "mount_targets", "protocol_services", "exports")
    return {table: len(getattr(emu.store, table)) for table in tables}


def test_a_provision_stopped_midway_leaves_only_our_resources_and_a_rerun_converges(tmp_path):
    # release_lag: a deleted instance keeps its security group, vSwitch and HPC cluster for a while.
    with emulator(timings=Timings(**{**QUICK.__dict__, "release_lag": 0.5})) as emu:
        vars_file = tmp_path / "cloud.yml"
        cloud_vars(
            emu,
            vars_file,
            scc_cloud_name="pfail",
            scc_cloud_instance_type="ecs.sccgn6.24xlarge",
            scc_cloud_image_id="m-scc",
            scc_cloud_tags=TAGS,
        )
        env = playbook_env(emu)
        # The step chosen: CPFS, after the network, the HPC cluster and the instances were made.
        emu.faults.add("forbidden", action="CreateFileSystem")
        rc, out = run_playbook(env, "provision.yml", vars_file)
        assert rc != 0 and "Forbidden.RAM" in out, out[-3000:]
        made = counts(emu)
        assert made["instances"] == 2 and made["file_systems"] == 0, made
        for table in TAGGED:
            for item in getattr(emu.store, table).values():
                assert TAGS.items() <= item["_tags"].items(), (table, item)
        for table in MARKED:
            for item in getattr(emu.store, table).values():
                assert item["Description"] == MARKER, (table, item)

        rc, out = run_playbook(env, "provision.yml", vars_file)
        assert rc == 0, out[-3000:]
        one_of_each = dict.fromkeys((*TAGGED, *MARKED, "protocol_services", "exports"), 1)
        assert counts(emu) == {**one_of_each, "instances": 2, "mount_targets": 0}

        # state: absent of instances or CPFS by a name alone is refused before any API call.
        mark = len(emu.calls)
        refused = run_module(emu, "ecs_instance", name="pfail-node", state="absent")
        assert refused["failed"] and "tags or instance_ids" in refused["msg"]
        refused = run_module(emu, "nas_cpfs", name="pfail-cpfs", state="absent")
        assert refused["failed"] and "tags or file_system_id" in refused["msg"]
        assert emu.calls[mark:] == []

        mark = len(emu.calls)
        rc, out = run_playbook(env, "teardown.yml", vars_file)
        assert rc == 0, out[-3000:]
        assert set(counts(emu).values()) == {0}
        refusals = [c["action"] for c in emu.calls[mark:] if (c["code"] or "").endswith("DependencyViolation")]
        assert refusals, "the release lag never made a delete wait"


def readme_ansible_runner_example():
    """The python block of docs/ansible-runner.md, as it is."""
    text = (ROOT / "docs" / "ansible-runner.md").read_text()
    return re.search(r"```python\n(.*?)```", text, re.S).group(1)


class KeptTemporaryDirectory:
    """tempfile.TemporaryDirectory that, when the example leaves it, keeps every file's bytes for the test."""

    kept: dict = {}
    modes: list = []

    def __init__(self, prefix=None, **_kwargs):
        self.path = tempfile.mkdtemp(prefix=prefix)

    def __enter__(self):
        return self.path

    def __exit__(self, *exc):
        KeptTemporaryDirectory.modes.append(os.stat(self.path).st_mode & 0o777)
        for path in sorted(p for p in pathlib.Path(self.path).rglob("*") if p.is_file()):
            KeptTemporaryDirectory.kept[str(path.relative_to(self.path))] = path.read_bytes()
        shutil.rmtree(self.path)


def test_the_readme_ansible_runner_example_leaves_no_secret_in_its_directory(tmp_path, monkeypatch):
    sts_token = "STS.NTk2b/known+token=="  # characters that change when percent-encoded
    with emulator(timings=QUICK, security_token=sts_token) as emu:
        monkeypatch.setattr(os, "environ", dict(playbook_env(emu), ALIBABA_CLOUD_SECURITY_TOKEN=sts_token))
        monkeypatch.setattr(tempfile, "TemporaryDirectory", KeptTemporaryDirectory)
        KeptTemporaryDirectory.kept, KeptTemporaryDirectory.modes = {}, []
        settings = cloud_vars(
            emu,
            tmp_path / "cloud.yml",
            scc_cloud_name="rdme",
            scc_cloud_instance_type="ecs.sccgn6.24xlarge",
            scc_cloud_image_id="m-scc",
            scc_cloud_instance_count=1,
            scc_cloud_cpfs_enabled=False,
            scc_cloud_tags={"managed-by": "scc.training", "scc-cluster": "rdme"},
        )
        inventory = tmp_path / "hosts.ini"
        inventory.write_text("localhost ansible_connection=local\n")
        example = {"__name__": "readme_example"}
        exec(compile(readme_ansible_runner_example(), "docs/ansible-runner.md", "exec"), example)
        status, rc, changed = example["run_playbook"](str(ROOT / "playbooks/provision.yml"), str(inventory), settings)
        stdout = b"".join(data for name, data in KeptTemporaryDirectory.kept.items() if name.endswith("/stdout"))
        assert (status, rc) == ("successful", 0), stdout.decode()[-3000:]
        assert len(changed) >= 5 and len(emu.instances()) == 1  # the signed calls, token included, went through
    kept = KeptTemporaryDirectory.kept
    assert KeptTemporaryDirectory.modes and set(KeptTemporaryDirectory.modes) == {0o700}
    assert any(name.startswith("artifacts/") and "/job_events/" in name for name in kept), sorted(kept)
    for secret in (emu.access_key_secret, sts_token):
        for form in secret_forms(secret):
            leaks = [name for name, data in kept.items() if form.encode() in data]
            assert leaks == [], "%r found in %s" % (form, leaks)
