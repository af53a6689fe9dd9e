"""provision.yml and teardown.yml with scc_cloud_ack_enabled against the offline emulator (no lab hosts).

provision.yml makes the network, the SCC instances and an ACK managed cluster, waits until it is running and
attaches the instances as nodes; a second run changes nothing, --check on the converged cloud writes nothing;
teardown.yml removes the nodes, deletes the cluster (waiting until it is gone) and everything else. Bad ACK
variables fail before any API call, naming the variable.
"""

from __future__ import annotations

import pytest

from lab.cloud.store import Timings
from lab.cloud.testing import emulator
from tests.cloud_helpers import cloud_vars, playbook_env, recap, run_playbook

ACK_WRITES = ("CreateCluster", "DeleteCluster", "AttachInstances", "DeleteClusterNodes")


@pytest.fixture(scope="module")
def cloud(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("ack")
    timings = Timings(vpc=0.05, instance_pending=0.1, instance_starting=0.1, cluster=0.5, cluster_delete=0.3, node=0.2)
    with emulator(timings=timings) as emu:
        vars_file = tmp / "cloud.yml"
        cloud_vars(
            emu,
            vars_file,
            scc_cloud_name="ackpb",
            scc_cloud_instance_type="ecs.sccgn6.24xlarge",  # the example is ebmgn8v (UEFI images only)
            scc_cloud_image_id="m-scc-centos75",
            scc_cloud_cpfs_enabled=False,
            scc_cloud_tags={"managed-by": "scc.training", "scc-cluster": "ackpb"},
            scc_cloud_ack_enabled=True,
            scc_cloud_ack_node_password="Hello1234-not-real",
        )
        yield dict(emu=emu, vars_file=vars_file, env=playbook_env(emu))
        assert emu.internal_errors == []


def playbook(cloud, name, *extra):
    return run_playbook(cloud["env"], name, cloud["vars_file"], *extra)


def ack_writes(emu, since):
    return [c["action"] for c in emu.calls[since:] if c["action"] in ACK_WRITES]


@pytest.mark.parametrize(
    "extra,variable",
    [
        ("scc_cloud_ack_service_cidr=192.168.0.0/20", "scc_cloud_ack_service_cidr"),
        ("scc_cloud_ack_cluster_spec=ack.huge", "scc_cloud_ack_cluster_spec"),
        ("scc_cloud_ack_node_password=''", "scc_cloud_ack_node_password"),
    ],
)
def test_bad_ack_variables_fail_before_any_api_call(cloud, extra, variable):
    mark = len(cloud["emu"].calls)
    rc, out = playbook(cloud, "provision.yml", "-e", extra)
    assert rc != 0 and variable in out, out[-3000:]
    assert cloud["emu"].calls[mark:] == []


def test_provision_makes_the_cluster_and_its_nodes_then_teardown_deletes_them(cloud):
    emu = cloud["emu"]
    rc, out = playbook(cloud, "provision.yml")
    assert rc == 0, out[-3000:]
    assert ack_writes(emu, 0) == ["CreateCluster", "AttachInstances"]
    (cluster,) = emu.clusters()
    assert cluster["name"] == "ackpb-ack" and cluster["state"] == "running"
    instances = sorted(i["InstanceId"] for i in emu.instances() if i["InstanceName"].startswith("ackpb-node"))
    assert len(instances) == 2 and sorted(n["instance_id"] for n in cluster["nodes"]) == instances
    assert "Hello1234-not-real" not in out

    mark = len(emu.calls)
    rc, out = playbook(cloud, "provision.yml")
    assert rc == 0 and recap(out)["changed"] == 0 and ack_writes(emu, mark) == [], out[-3000:]
    rc, out = playbook(cloud, "provision.yml", "--check")
    assert rc == 0 and recap(out)["changed"] == 0 and ack_writes(emu, mark) == [], out[-3000:]

    rc, out = playbook(cloud, "teardown.yml")
    assert rc == 0, out[-3000:]
    assert ack_writes(emu, mark) == ["DeleteClusterNodes", "DeleteCluster"]
    assert emu.clusters() == [] and emu.vpcs() == []
    rc, out = playbook(cloud, "teardown.yml")
    assert rc == 0 and recap(out)["changed"] == 0, out[-3000:]
