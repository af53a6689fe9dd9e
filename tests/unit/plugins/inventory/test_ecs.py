"""scc.training.ecs inventory plugin on a real DescribeInstances reply (tests/fixtures/alicloud)."""

import json
import shlex
import subprocess
from pathlib import Path

import pytest
import yaml
from ansible.errors import AnsibleError
from ansible.inventory.data import InventoryData
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar, trust_as_template

from ansible_collections.scc.training.plugins.inventory.ecs import InventoryModule

FIXTURE = Path(__file__).resolve().parents[3] / "fixtures" / "alicloud" / "describe_instances_cn_hangzhou.txt"


def reply():
    text = FIXTURE.read_text()
    assert text.startswith("# source: https://github.com/aliyun/")
    return json.loads(text.split("\n", 1)[1])


class FakeSdkClient:
    """Stands in for AcsClient: answers DescribeInstances with the fixture, page by page (NextToken/MaxResults)."""

    def __init__(self, data):
        self.items = data["Instances"]["Instance"]
        self.requests = []

    def do_action_with_exception(self, request):
        params = dict(request.get_query_params())
        self.requests.append(params)
        size, start = int(params["MaxResults"]), int(params.get("NextToken") or 0)
        page = self.items[start : start + size]
        more = start + size < len(self.items)
        return json.dumps(
            {
                "TotalCount": len(self.items),
                "NextToken": str(start + size) if more else "",
                "RequestId": "R",
                "Instances": {"Instance": page},
            }
        ).encode()


def make_plugin(monkeypatch, data=None, **options):
    from ansible_collections.scc.training.plugins.module_utils import _alicloud

    fake = FakeSdkClient(data or reply())
    real_init = _alicloud.AlicloudApi.__init__

    def init(self, *args, **kwargs):
        real_init(self, *args, **kwargs)
        self._client = fake

    monkeypatch.setattr(_alicloud.AlicloudApi, "__init__", init)
    defaults = dict(
        access_key="AK",
        secret_key="SK",
        security_token=None,
        region="cn-hangzhou",
        ecs_endpoint="127.0.0.1:1",
        connect_timeout=5,
        read_timeout=30,
        api_retries=0,
        tags={},
        instance_types=[],
        vpc_id=None,
        hpc_cluster_id=None,
        statuses=["Running"],
        hostnames="instance_id",
        compose={},
        groups={},
        keyed_groups=[],
        data_prep_tags={},
        data_prep_group="scc_data_prep",
        bastion_tags={},
        bastion_group="scc_bastion",
        bastion_user="root",
        bastion_private_key_file=None,
        known_hosts_file=None,
        strict=True,
        leading_separator=True,
        use_extra_vars=False,
    )
    defaults.update(options)
    plugin = InventoryModule()
    plugin.get_option = lambda name: defaults[name]
    plugin.inventory = InventoryData()
    plugin.templar = Templar(loader=DataLoader())
    return plugin, fake


def test_running_instances_become_hosts_with_addresses_and_gpus(monkeypatch):
    plugin, fake = make_plugin(
        monkeypatch,
        keyed_groups=[{"key": trust_as_template("ecs_instance_type"), "prefix": "type"}],
        groups={"gpu": trust_as_template("ecs_gpu_count > 0")},
    )  # as read from the file
    plugin._populate(plugin._fetch())
    data = reply()["Instances"]["Instance"]
    running = {i["InstanceId"]: i for i in data if i["Status"] == "Running"}
    assert set(plugin.inventory.hosts) == set(running) and len(running) == 15
    assert len(fake.requests) == 1 and fake.requests[0]["MaxResults"] == 100  # 24 items: one page
    host = plugin.inventory.get_host("i-bp18ncx6mrfqom5acq8s")  # the running ecs.gn6i-c4g1.xlarge (1x T4)
    hv = host.vars
    assert hv["ecs_gpu_count"] == 1 and hv["ecs_gpu_spec"] == "NVIDIA T4"
    assert hv["ansible_host"] == running["i-bp18ncx6mrfqom5acq8s"]["VpcAttributes"]["PrivateIpAddress"]["IpAddress"][0]
    assert hv["ecs_rdma_ips"] == [] and hv["ecs_instance_type"] == "ecs.gn6i-c4g1.xlarge"
    assert [h.name for h in plugin.inventory.groups["gpu"].get_hosts()] == ["i-bp18ncx6mrfqom5acq8s"]
    g7 = {h.name for h in plugin.inventory.groups["type_ecs_g7_large"].get_hosts()}
    assert g7 == {i for i, v in running.items() if v["InstanceType"] == "ecs.g7.large"} and len(g7) == 5


def test_tag_and_type_filters(monkeypatch):
    data = reply()["Instances"]["Instance"]
    tagged = [
        i
        for i in data
        if {"TagKey": "ack.aliyun.com", "TagValue": "cc780733e93b8433299c2da47d66e98b4"}
        in (i.get("Tags") or {}).get("Tag", [])
    ]
    assert tagged
    plugin, fake = make_plugin(monkeypatch, tags={"ack.aliyun.com": "cc780733e93b8433299c2da47d66e98b4"}, statuses=[])
    plugin._populate(plugin._fetch())
    assert set(plugin.inventory.hosts) == {i["InstanceId"] for i in tagged}
    assert fake.requests[0]["Tag.1.Key"] == "ack.aliyun.com"  # filtered on the server too

    plugin = make_plugin(monkeypatch, instance_types=["ecs.gn6i-c4g1.xlarge"], statuses=["Stopped"])[0]
    plugin._populate(plugin._fetch())
    assert len(plugin.inventory.hosts) == 3


def test_the_data_prep_ecs_joins_its_own_group_only(monkeypatch):
    """Instances with data_prep_tags: in data_prep_group, never in groups / keyed_groups, of any type."""
    ack = {"ack.aliyun.com": "cc780733e93b8433299c2da47d66e98b4"}
    data = reply()["Instances"]["Instance"]
    running = [i for i in data if i["Status"] == "Running"]
    prep = {
        i["InstanceId"]
        for i in running
        if {"TagKey": "ack.aliyun.com", "TagValue": ack["ack.aliyun.com"]} in (i.get("Tags") or {}).get("Tag", [])
    }
    nodes = {i["InstanceId"] for i in running if i["InstanceType"] == "ecs.gn6i-c4g1.xlarge"} - prep
    assert prep and nodes and {running_type(data, i) for i in prep} != {"ecs.gn6i-c4g1.xlarge"}
    plugin = make_plugin(
        monkeypatch,
        instance_types=["ecs.gn6i-c4g1.xlarge"],
        data_prep_tags=ack,
        groups={"scc_cluster": trust_as_template("true")},
        keyed_groups=[{"key": trust_as_template("ecs_instance_type"), "prefix": "type"}],
        compose={"ansible_user": trust_as_template("'root'")},
    )[0]
    plugin._populate(plugin._fetch())
    groups = plugin.inventory.groups
    assert {h.name for h in groups["scc_data_prep"].get_hosts()} == prep
    assert {h.name for h in groups["scc_cluster"].get_hosts()} == nodes
    for name in prep:  # composed variables still apply; no keyed group holds it
        host = plugin.inventory.get_host(name)
        assert host.vars["ansible_user"] == "root"
        assert [g.name for g in host.get_groups() if g.name != "all"] == ["scc_data_prep"]

    plugin = make_plugin(monkeypatch, groups={"scc_cluster": trust_as_template("true")})[0]  # off by default
    plugin._populate(plugin._fetch())
    assert "scc_data_prep" not in plugin.inventory.groups


def running_type(data, instance_id):
    return next(i["InstanceType"] for i in data if i["InstanceId"] == instance_id)


def test_duplicate_host_names_fail(monkeypatch):
    plugin = make_plugin(monkeypatch, hostnames="instance_name", statuses=[])[0]
    views = plugin._fetch()
    with pytest.raises(AnsibleError, match="hostnames: instance_id"):
        plugin._populate(views + views[:1])


def test_verify_file_accepts_only_ecs_yml(tmp_path):
    good, bad = tmp_path / "cluster.ecs.yml", tmp_path / "cluster.yml"
    good.write_text("plugin: scc.training.ecs\n")
    bad.write_text("plugin: scc.training.ecs\n")
    assert InventoryModule().verify_file(str(good)) and not InventoryModule().verify_file(str(bad))


def test_empty_tags_are_refused(monkeypatch):
    """The nodes are found by the cluster's tags: without them every instance of the account would be a node."""
    plugin = make_plugin(monkeypatch, tags={})[0]
    with pytest.raises(AnsibleError, match="tags is empty; give the cluster's tags"):
        plugin._require_tags()
    make_plugin(monkeypatch, tags={"scc-cluster": "bert"})[0]._require_tags()


def test_known_hosts_file_sets_strict_ssh_args(monkeypatch, tmp_path):
    """known_hosts_file: every host trusts that file only (StrictHostKeyChecking=yes); unset, nothing is set."""
    monkeypatch.setenv("HOME", str(tmp_path))
    plugin = make_plugin(monkeypatch, known_hosts_file="~/.ssh/scc-bert.known_hosts")[0]
    plugin._populate(plugin._fetch())
    want = "-o UserKnownHostsFile=%s/.ssh/scc-bert.known_hosts -o StrictHostKeyChecking=yes" % tmp_path
    assert {h.vars["ansible_ssh_common_args"] for h in plugin.inventory.hosts.values()} == {want}
    plugin = make_plugin(monkeypatch, known_hosts_file=None)[0]
    plugin._populate(plugin._fetch())
    assert all("ansible_ssh_common_args" not in h.vars for h in plugin.inventory.hosts.values())


def test_the_shipped_examples_agree():
    """inventories/cloud: the inventory finds the nodes by the tags cloud.example.yml provisions them with, not by a
    family, and trusts the known_hosts file provision.yml fills (issue 34)."""
    root = Path(__file__).resolve().parents[4] / "inventories" / "cloud"
    cloud = yaml.safe_load((root / "cloud.example.yml").read_text())
    inventory = yaml.safe_load((root / "example.ecs.yml").read_text())
    assert inventory["tags"] == cloud["scc_cloud_tags"]
    assert not inventory.get("instance_types")
    assert inventory["known_hosts_file"] == "~/.ssh/scc-%s.known_hosts" % cloud["scc_cloud_name"]
    # The bastion way (cloud.bastion.example.yml on top): provision.yml tags the bastion scc-role=bastion.
    assert inventory["bastion_tags"] == {"scc-role": "bastion"}


def with_bastion(data, count=1, eip="127.0.200.2"):
    """The fixture's reply with ``count`` running instances tagged scc-role=bastion, the first with an EIP."""
    data = json.loads(json.dumps(data))
    running = [i for i in data["Instances"]["Instance"] if i["Status"] == "Running"]
    for n, inst in enumerate(running[:count]):
        inst.setdefault("Tags", {}).setdefault("Tag", []).append({"TagKey": "scc-role", "TagValue": "bastion"})
        if n == 0:
            inst["EipAddress"] = {"AllocationId": "eip-1", "IpAddress": eip, "Bandwidth": 5}
    return data, [i["InstanceId"] for i in running[:count]]


def ssh_config(args, host):
    """What ssh makes of ``args`` for ``host`` (ssh -G: the configuration it would use; it connects nowhere)."""
    out = subprocess.run(["ssh", "-G", *shlex.split(args), host], capture_output=True, text=True, check=True).stdout
    return dict(line.split(" ", 1) for line in out.splitlines() if " " in line)


def test_every_host_goes_through_the_bastion_its_key_checked_strictly(monkeypatch, tmp_path):
    """Issue 34.3 (b): the bastion (bastion_tags) in its own group at its EIP; every other host's ssh jumps through it,
    the jump checking the bastion's key against the same known_hosts file with StrictHostKeyChecking=yes."""
    data, [bastion] = with_bastion(reply())
    known = tmp_path / "my known_hosts"  # a blank in the path: quoted for both ssh command lines
    plugin = make_plugin(
        monkeypatch,
        data=data,
        bastion_tags={"scc-role": "bastion"},
        known_hosts_file=str(known),
        groups={"scc_cluster": trust_as_template("true")},
    )[0]
    plugin._populate(plugin._fetch())
    groups = plugin.inventory.groups
    assert [h.name for h in groups["scc_bastion"].get_hosts()] == [bastion]
    nodes = {h.name for h in groups["scc_cluster"].get_hosts()}
    assert bastion not in nodes and len(nodes) == 14
    jump = plugin.inventory.get_host(bastion).vars
    assert jump["ansible_host"] == "127.0.200.2" and "ProxyCommand" not in jump["ansible_ssh_common_args"]
    for name in nodes:
        hv = plugin.inventory.get_host(name).vars
        config = ssh_config(hv["ansible_ssh_common_args"], hv["ansible_host"])
        assert config["stricthostkeychecking"] == "true" and config["userknownhostsfile"] == str(known)
        inner = shlex.split(config["proxycommand"])
        assert inner[:2] == ["ssh", "-o"] and inner[-3:] == ["-W", "%h:%p", "root@127.0.200.2"]
        assert ["-o", "UserKnownHostsFile=%s" % known, "-o", "StrictHostKeyChecking=yes"] == inner[1:5]
        assert "accept-new" not in hv["ansible_ssh_common_args"] and "=no" not in hv["ansible_ssh_common_args"]
    jump_config = ssh_config(jump["ansible_ssh_common_args"], jump["ansible_host"])
    assert jump_config["stricthostkeychecking"] == "true" and "proxycommand" not in jump_config


def test_no_bastion_means_direct_and_a_doubtful_one_fails(monkeypatch, tmp_path):
    options = dict(bastion_tags={"scc-role": "bastion"}, known_hosts_file=str(tmp_path / "k"))
    plugin = make_plugin(monkeypatch, **options)[0]  # none tagged: reached directly (scc_cloud_access: vpc)
    plugin._populate(plugin._fetch())
    assert not any("ProxyCommand" in h.vars["ansible_ssh_common_args"] for h in plugin.inventory.hosts.values())
    assert "scc_bastion" not in plugin.inventory.groups

    two, ids = with_bastion(reply(), count=2)
    assert len(ids) == 2
    plugin = make_plugin(monkeypatch, data=two, **options)[0]
    with pytest.raises(AnsibleError, match=r"2 instances carry bastion_tags .*not guessed"):
        plugin._populate(plugin._fetch())
    one, [bastion] = with_bastion(reply(), eip="")
    plugin = make_plugin(monkeypatch, data=one, **options)[0]
    with pytest.raises(AnsibleError, match="the bastion %s has no EIP" % bastion):
        plugin._populate(plugin._fetch())
    one, [bastion] = with_bastion(reply())
    plugin = make_plugin(monkeypatch, data=one, bastion_tags={"scc-role": "bastion"})[0]
    with pytest.raises(AnsibleError, match="known_hosts_file is not set"):
        plugin._populate(plugin._fetch())


def test_the_jump_logs_in_with_its_own_key_checked_before_any_call(monkeypatch, tmp_path):
    """bastion_private_key_file: the jump's ssh offers that key only; the nodes' own ssh is left as it was. A file that
    is not there fails the inventory naming the option, before any API call."""
    data, [bastion] = with_bastion(reply())
    key = tmp_path / "jump key"  # a blank: quoted for both ssh command lines
    key.write_text("-----BEGIN OPENSSH PRIVATE KEY-----\n")
    known = tmp_path / "known_hosts"
    options = dict(data=data, bastion_tags={"scc-role": "bastion"}, known_hosts_file=str(known))
    plugin = make_plugin(monkeypatch, bastion_private_key_file=str(key), **options)[0]
    plugin._check_jump_key()
    plugin._populate(plugin._fetch())
    node = next(h for h in plugin.inventory.hosts.values() if h.name != bastion)
    config = ssh_config(node.vars["ansible_ssh_common_args"], node.vars["ansible_host"])
    inner = shlex.split(config["proxycommand"])
    assert inner[:5] == ["ssh", "-i", str(key), "-o", "IdentitiesOnly=yes"] and inner[-1] == "root@127.0.200.2"
    assert "identityfile" not in config or str(key) not in config["identityfile"]  # the nodes' ssh: unchanged
    jump = plugin.inventory.get_host(bastion).vars["ansible_ssh_common_args"]
    assert str(key) not in jump  # the bastion itself is reached with Ansible's own key

    plugin = make_plugin(monkeypatch, bastion_private_key_file=str(tmp_path / "missing"), **options)[0]
    with pytest.raises(AnsibleError, match=r"bastion_private_key_file .*missing is not a readable file"):
        plugin._check_jump_key()
    make_plugin(monkeypatch, **options)[0]._check_jump_key()  # unset: nothing to check
