"""cs_cluster and cs_cluster_nodes (ACK, CS API 2015-12-15 ROA) against the offline emulator (lab/cloud/cs.py).

Each module runs in-process the way Ansible runs it (tests/cloud_helpers.run_module): create, the
wait for running, re-run unchanged, check mode without a write, delete and the wait for deletion;
the nodes attached from emulator ECS instances; and the refusals: a wrong signature, a cluster that
does not exist, an instance outside the cluster's VPC (before any write), a wait that times out.
"""

from __future__ import annotations

import time

import pytest

from lab.cloud.store import Timings
from tests.cloud_helpers import ZONE, module_emulator, run_module

OURS = {"managed-by": "scc.training", "test": "ack"}
CS_WRITES = ("CreateCluster", "DeleteCluster", "AttachInstances", "DeleteClusterNodes")
emu = module_emulator(Timings(instance_pending=0.05, instance_starting=0.05, cluster=0.4, cluster_delete=0.3, node=0.2))


def cs_writes(emu, since):
    return [c["action"] for c in emu.calls[since:] if c["action"] in CS_WRITES]


def all_writes(emu, since):
    return [c["action"] for c in emu.calls[since:] if c["action"].startswith(("Create", "Delete", "Attach", "Run"))]


@pytest.fixture(scope="module")
def net(emu):
    """Two VPCs: the cluster's (with two instances) and another one (with one instance)."""
    out = {}
    for key, cidr, vsw_cidr in (("a", "10.20.0.0/16", "10.20.0.0/24"), ("b", "10.30.0.0/16", "10.30.0.0/24")):
        vpc = run_module(emu, "ecs_vpc", name="ack-" + key, cidr_block=cidr)["vpc"]
        vsw = run_module(
            emu, "ecs_vswitch", name="ack-" + key, vpc_id=vpc["vpc_id"], zone_id=ZONE, cidr_block=vsw_cidr
        )["vswitch"]
        sg = run_module(emu, "ecs_security_group", name="ack-" + key, vpc_id=vpc["vpc_id"], tags=OURS)["security_group"]
        hpc = run_module(emu, "ecs_hpc_cluster", name="ack-" + key)["hpc_cluster"]["hpc_cluster_id"]
        made = run_module(
            emu, "ecs_instance", hpc_cluster_id=hpc, name="ack-" + key, count=2 if key == "a" else 1, instance_type="ecs.sccgn6.24xlarge",
            image_id="m-scc-centos75", vswitch_id=vsw["vswitch_id"], security_group_id=sg["security_group_id"],
            tags=OURS,
        )  # fmt: skip
        assert not made.get("failed"), made
        out[key] = dict(vpc_id=vpc["vpc_id"], vswitch_id=vsw["vswitch_id"],
                        instance_ids=sorted(i["instance_id"] for i in made["instances"]))  # fmt: skip
    return out


def cluster_args(net, **extra):
    return {
        "name": "ack-t",
        "vpc_id": net["a"]["vpc_id"],
        "vswitch_ids": [net["a"]["vswitch_id"]],
        "pod_cidr": "172.20.0.0/16",
        "tags": OURS,
        **extra,
    }


def test_cluster_cycle_waits_for_running_and_for_deletion(emu, net):
    args = cluster_args(net)
    mark = len(emu.calls)
    predicted = run_module(emu, "cs_cluster", check=True, **args)
    assert predicted["changed"] is True and all_writes(emu, mark) == []
    assert predicted["cluster"]["vpc_id"] == net["a"]["vpc_id"] and predicted["cluster"]["tags"] == OURS

    first = run_module(emu, "cs_cluster", **args)
    assert first["changed"] is True and not first.get("failed"), first
    cluster = first["cluster"]
    assert cluster["state"] == "running" and cluster["cluster_id"].startswith("c")
    assert cluster["vpc_id"] == net["a"]["vpc_id"] and cluster["vswitch_ids"] == [net["a"]["vswitch_id"]]
    stored = emu.store.clusters[cluster["cluster_id"]]
    assert (stored["_network"], stored["container_cidr"]) == ("flannel", "172.20.0.0/16")
    # It waited: DescribeClusterDetail was read while the cluster was still initial.
    assert sum(1 for c in emu.calls[mark:] if c["action"] == "DescribeClusterDetail") >= 2

    mark = len(emu.calls)
    again = run_module(emu, "cs_cluster", **args)
    assert again["changed"] is False and again["cluster"] == cluster and cs_writes(emu, mark) == []
    listed = run_module(emu, "cs_cluster_info", name="ack-t", tags=OURS)
    assert listed["changed"] is False and listed["clusters"] == [cluster]
    assert run_module(emu, "cs_cluster_info", name="ack-t", tags={"test": "other"})["clusters"] == []
    assert run_module(emu, "cs_cluster_info", cluster_id=cluster["cluster_id"])["clusters"] == [cluster]
    checked = run_module(emu, "cs_cluster", check=True, state="absent", name="ack-t", tags=OURS)
    assert checked["changed"] is True and cs_writes(emu, mark) == []

    gone = run_module(emu, "cs_cluster", state="absent", name="ack-t", tags=OURS)
    assert gone["changed"] is True and gone["cluster"] == {}
    assert [c for c in emu.clusters() if c["cluster_id"] == cluster["cluster_id"]] == []  # waited until deleted
    mark = len(emu.calls)
    assert run_module(emu, "cs_cluster", state="absent", name="ack-t", tags=OURS)["changed"] is False
    assert cs_writes(emu, mark) == []
    assert run_module(emu, "cs_cluster_info", name="ack-t")["clusters"] == []


def test_present_while_the_cluster_is_being_deleted_fails_clearly(emu, net):
    emu.store.timings.cluster_delete = 5.0
    try:
        run_module(emu, "cs_cluster", **cluster_args(net, name="ack-going"))
        assert run_module(emu, "cs_cluster", wait=False, state="absent", name="ack-going", tags=OURS)["changed"]
        mark = len(emu.calls)
        result = run_module(emu, "cs_cluster", **cluster_args(net, name="ack-going"))
        assert result["failed"] is True and "is being deleted" in result["msg"] and cs_writes(emu, mark) == []
    finally:
        emu.store.timings.cluster_delete = 0.3


def test_absent_by_name_alone_is_refused_before_any_call(emu):
    mark = len(emu.calls)
    result = run_module(emu, "cs_cluster", name="ack-t", state="absent")
    assert result["failed"] is True and "tags or cluster_id" in result["msg"]
    assert emu.calls[mark:] == []


def test_terway_sends_its_add_on_and_no_pod_cidr(emu, net):
    args = cluster_args(net, name="ack-terway", network_plugin="terway-eniip", pod_cidr=None, wait=False)
    made = run_module(emu, "cs_cluster", **args)
    assert made["changed"] is True and not made.get("failed"), made
    stored = emu.store.clusters[made["cluster"]["cluster_id"]]
    assert (stored["_network"], stored["container_cidr"]) == ("terway-eniip", "")
    assert run_module(emu, "cs_cluster", state="absent", name="ack-terway", tags=OURS)["changed"] is True


def test_other_tags_are_another_cluster(emu, net):
    made = run_module(emu, "cs_cluster", wait=False, **cluster_args(net))["cluster"]
    try:
        mark = len(emu.calls)
        other = run_module(emu, "cs_cluster", state="absent", name="ack-t", tags={"managed-by": "someone-else"})
        assert other["changed"] is False and cs_writes(emu, mark) == []
        assert [c["cluster_id"] for c in emu.clusters() if c["name"] == "ack-t"] == [made["cluster_id"]]
    finally:
        run_module(emu, "cs_cluster", state="absent", name="ack-t", tags=OURS)


def test_wait_timeout_fails_naming_the_cluster(emu, net):
    emu.store.timings.cluster = 30.0
    try:
        result = run_module(emu, "cs_cluster", wait_timeout=1, **cluster_args(net, name="ack-slow"))
    finally:
        emu.store.timings.cluster = 0.4
    assert result["failed"] is True and "ACK cluster c" in result["msg"] and "still not ready after 1s" in result["msg"]
    assert run_module(emu, "cs_cluster", state="absent", name="ack-slow", tags=OURS)["changed"] is True


def test_wrong_signature_is_refused_with_the_real_error(emu, net):
    mark = len(emu.calls)
    result = run_module(emu, "cs_cluster", secret_key="not-the-secret", **cluster_args(net))
    assert result["failed"] is True
    # aliyunsdkcore turns SignatureDoesNotMatch into InvalidAccessKeySecret when its string to sign
    # matches the server's (client.py); the ROA string to sign has ":" in it, so it stays as sent.
    assert result["error"]["code"] in ("SignatureDoesNotMatch", "InvalidAccessKeySecret")
    assert result["error"]["http_status"] == 400
    assert [c["status"] for c in emu.calls[mark:]] == [400]  # not retried
    assert "not-the-secret" not in str(result)


def test_unknown_cluster_is_error_cluster_not_found(emu):
    result = run_module(
        emu, "cs_cluster_nodes", cluster_id="cdoesnotexist", instance_ids=["i-abc"], password="Hello1234"
    )
    assert result["failed"] is True and "cluster_id: no ACK cluster cdoesnotexist" in result["msg"]
    assert emu.calls[-1]["action"] == "DescribeClusterDetail" and emu.calls[-1]["code"] == "ErrorClusterNotFound"
    assert emu.calls[-1]["status"] == 404


@pytest.fixture
def cluster(emu, net):
    made = run_module(emu, "cs_cluster", **cluster_args(net, name="ack-nodes"))["cluster"]
    yield made
    run_module(emu, "cs_cluster", state="absent", name="ack-nodes", tags=OURS)


def test_nodes_cycle(emu, net, cluster):
    ids = net["a"]["instance_ids"]
    args = dict(cluster_id=cluster["cluster_id"], instance_ids=ids, password="Hello1234")
    mark = len(emu.calls)
    predicted = run_module(emu, "cs_cluster_nodes", check=True, **args)
    assert predicted["changed"] is True and predicted["added"] == ids and cs_writes(emu, mark) == []

    first = run_module(emu, "cs_cluster_nodes", **args)
    assert first["changed"] is True and first["added"] == ids, first
    assert sorted(n["instance_id"] for n in first["nodes"]) == ids
    assert {n["state"] for n in first["nodes"]} == {"running"}  # waited for the nodes
    assert all(n["node_name"].startswith("cn-shanghai.10.20.0.") for n in first["nodes"])
    assert "Hello1234" not in str(first)

    mark = len(emu.calls)
    again = run_module(emu, "cs_cluster_nodes", **args)
    assert again["changed"] is False and again["added"] == [] and cs_writes(emu, mark) == []
    assert run_module(emu, "cs_cluster_nodes", check=True, **args)["changed"] is False

    one = dict(cluster_id=cluster["cluster_id"], instance_ids=ids[:1], state="absent")
    assert run_module(emu, "cs_cluster_nodes", check=True, **one)["changed"] is True and cs_writes(emu, mark) == []
    removed = run_module(emu, "cs_cluster_nodes", **one)
    assert removed["changed"] is True and len(removed["removed"]) == 1 and removed["nodes"] == []
    left = [n["instance_id"] for c in emu.clusters() if c["cluster_id"] == cluster["cluster_id"] for n in c["nodes"]]
    assert left == ids[1:]
    assert run_module(emu, "cs_cluster_nodes", **one)["changed"] is False
    # The instances are never released.
    assert all(i in emu.store.instances for i in ids)


def test_instance_outside_the_cluster_vpc_is_refused_before_any_write(emu, net, cluster):
    stranger = net["b"]["instance_ids"][0]
    mark = len(emu.calls)
    result = run_module(
        emu, "cs_cluster_nodes", cluster_id=cluster["cluster_id"], instance_ids=[net["a"]["instance_ids"][0], stranger],
        password="Hello1234",
    )  # fmt: skip
    assert result["failed"] is True
    assert result["msg"].startswith("instance_ids: %s is in VPC %s, not in the cluster's VPC %s" % (
        stranger, net["b"]["vpc_id"], net["a"]["vpc_id"]))  # fmt: skip
    assert cs_writes(emu, mark) == [] and [c["action"] for c in emu.calls[mark:]] == [
        "DescribeClusterDetail", "DescribeInstances"]  # fmt: skip
    missing = run_module(
        emu, "cs_cluster_nodes", cluster_id=cluster["cluster_id"], instance_ids=["i-nothere123"], password="Hello1234"
    )
    assert missing["failed"] is True and "instance_ids: i-nothere123 is not an ECS instance" in missing["msg"]
    assert cs_writes(emu, mark) == []


@pytest.mark.parametrize(
    "args,option",
    [
        (dict(cluster_id="c123", instance_ids=[]), "instance_ids"),
        (dict(cluster_id="c123", instance_ids=["x-1"]), "instance_ids"),
        (dict(cluster_id="not-a-cluster", instance_ids=["i-abc"]), "cluster_id"),
        (dict(cluster_id="c123", instance_ids=["i-abc"]), "password or key_pair"),
        (dict(cluster_id="c123", instance_ids=["i-abc"], nodepool_id="np1", key_pair="k"), "key_pair"),
    ],
)
def test_bad_node_input_fails_before_any_api_call(emu, args, option):
    mark = len(emu.calls)
    result = run_module(emu, "cs_cluster_nodes", **args)
    assert result["failed"] is True and option in result["msg"], result
    assert emu.calls[mark:] == []


@pytest.mark.parametrize(
    "args,option",
    [
        (dict(name="-bad", vpc_id="vpc-a", vswitch_ids=["vsw-a"], pod_cidr="172.20.0.0/16"), "name"),
        (dict(name="ok", vswitch_ids=["vsw-a"], pod_cidr="172.20.0.0/16"), "vpc_id"),
        (dict(name="ok", vpc_id="vpc-a", pod_cidr="172.20.0.0/16"), "vswitch_ids"),
        (dict(name="ok", vpc_id="vpc-a", vswitch_ids=["sw-1"], pod_cidr="172.20.0.0/16"), "vswitch_ids"),
        (dict(name="ok", vpc_id="vpc-a", vswitch_ids=["vsw-a"]), "pod_cidr is required"),
        (dict(name="ok", vpc_id="vpc-a", vswitch_ids=["vsw-a"], pod_cidr="8.8.0.0/16"), "pod_cidr"),
        (dict(name="ok", vpc_id="vpc-a", vswitch_ids=["vsw-a"], pod_cidr="172.21.0.0/16"), "overlaps service_cidr"),
        (
            dict(
                name="ok", vpc_id="vpc-a", vswitch_ids=["vsw-a"], pod_cidr="172.20.0.0/16", service_cidr="10.0.0.0/12"
            ),
            "service_cidr",
        ),
        (
            dict(
                name="ok",
                vpc_id="vpc-a",
                vswitch_ids=["vsw-a"],
                pod_cidr="172.20.0.0/16",
                addons=[{"name": "terway-eniip"}],
            ),
            "network_plugin",
        ),
    ],
)
def test_bad_cluster_input_fails_before_any_api_call(emu, args, option):
    mark = len(emu.calls)
    result = run_module(emu, "cs_cluster", **args)
    assert result["failed"] is True and option in result["msg"], result
    assert emu.calls[mark:] == []


def test_transient_faults_on_create_never_make_two_clusters(emu, net):
    for kind in ("throttling", "unavailable", "drop_before", "drop_after"):
        emu.inject(kind, action="CreateCluster")
        result = run_module(emu, "cs_cluster", wait=False, **cluster_args(net, name="ack-fault"))
        assert result["changed"] is True, (kind, result)
        assert len([c for c in emu.clusters() if c["name"] == "ack-fault"]) == 1, kind
        emu.inject(kind, action="DeleteCluster")
        assert run_module(emu, "cs_cluster", state="absent", name="ack-fault", tags=OURS)["changed"] is True, kind
        time.sleep(0.01)
        assert [c for c in emu.clusters() if c["name"] == "ack-fault"] == [], kind
