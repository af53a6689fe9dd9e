"""scc.training.nas_cpfs_protocol_service against the offline emulator (lab/cloud), through the real SDK.

The CPFS-NFS protocol service and its export: create, re-run unchanged, check mode, delete,
re-delete; a second export on the same service; bad input failing before any API call; injected
faults retried without a second service or export. Modules run in-process the way Ansible runs
them (tests/cloud_helpers.run_module), like test_cloud_modules.py.
"""

from __future__ import annotations

import re

import pytest
import yaml

from lab.cloud.store import Timings
from tests.cloud_helpers import (
    BAD_PROTOCOL_SERVICE_OPTIONS,
    ROOT,
    ZONE,
    cloud_vars,
    cpfs_args,
    module_emulator,
    playbook_env,
    recap,
    run_module,
    run_playbook,
    writes,
)

OURS = {"managed-by": "scc.training", "test": "protocol-service"}
MODULE = "nas_cpfs_protocol_service"
emu = module_emulator(Timings(vpc=0.05, file_system=0.2, mount_target=0.1, protocol_service=0.1))


@pytest.fixture(scope="module")
def cpfs(emu):
    """A VPC, a VSwitch and a Running CPFS file system; deleted at the end (which needs no service left)."""
    vpc = run_module(emu, "ecs_vpc", name="ps-vpc", cidr_block="192.168.0.0/16")["vpc"]
    vsw = run_module(
        emu, "ecs_vswitch", name="ps-vsw", vpc_id=vpc["vpc_id"], zone_id=ZONE, cidr_block="192.168.8.0/21"
    )["vswitch"]
    fs = run_module(emu, "nas_cpfs", **cpfs_args("ps-cpfs", vpc["vpc_id"], vsw["vswitch_id"], OURS))["file_system"]
    assert fs["status"] == "Running"
    yield dict(file_system_id=fs["file_system_id"], vpc_id=vpc["vpc_id"], vswitch_id=vsw["vswitch_id"])
    assert run_module(emu, "nas_cpfs", name="ps-cpfs", tags=OURS, state="absent")["changed"] is True


def present_args(cpfs, **extra):
    return {**cpfs, **extra}


def absent_args(cpfs):
    return dict(file_system_id=cpfs["file_system_id"], vswitch_id=cpfs["vswitch_id"], state="absent")


def cpfs_nfs_pattern():
    """The pattern the cpfs_mount role checks cpfs_mount_source against for protocol cpfs-nfs."""
    internals = yaml.safe_load((ROOT / "roles/cpfs_mount/vars/main.yml").read_text())
    return internals["_cpfs_mount_source_forms"]["cpfs-nfs"]["pattern"]


def test_protocol_service_cycle(emu, cpfs):
    mark = len(emu.calls)
    predicted = run_module(emu, MODULE, check=True, **present_args(cpfs))
    assert predicted["changed"] is True and writes(emu, mark) == []
    assert (
        predicted["protocol_service"]["protocol_service_id"] == ""
        and predicted["protocol_service"]["nfs_mount_source"] == ""
    )

    first = run_module(emu, MODULE, **present_args(cpfs))
    assert first["changed"] is True and not first.get("failed"), first
    ps = first["protocol_service"]
    assert ps["protocol_service_id"].startswith("ptc-") and ps["status"] == "Running" and ps["protocol_type"] == "NFS"
    assert ps["export_id"].startswith("exp-") and ps["export_status"] == "ACTIVE" and ps["export_path"] == "/"
    assert ps["nfs_mount_source"] == ps["protocol_mount_target_domain"] + ":/"
    assert re.match(cpfs_nfs_pattern(), ps["nfs_mount_source"]), ps["nfs_mount_source"]
    assert first["diff"]["before"] == {} and first["diff"]["after"] == ps
    assert writes(emu, mark) == ["CreateProtocolService", "CreateProtocolMountTarget"]
    assert [s["ProtocolServiceId"] for s in emu.protocol_services()] == [ps["protocol_service_id"]]
    assert [(e["ExportId"], e["Path"], e["VSwitchId"]) for e in emu.exports()] == [
        (ps["export_id"], "/", cpfs["vswitch_id"])
    ]

    mark = len(emu.calls)
    again = run_module(emu, MODULE, **present_args(cpfs))
    assert again["changed"] is False and again["protocol_service"] == ps and again["diff"]["before"] == ps
    checked = run_module(emu, MODULE, check=True, **present_args(cpfs))
    assert checked["changed"] is False and checked["protocol_service"] == ps
    predicted = run_module(emu, MODULE, check=True, **absent_args(cpfs))
    assert predicted["changed"] is True and predicted["protocol_service"] == {}
    assert writes(emu, mark) == []
    assert len(emu.protocol_services()) == 1 and len(emu.exports()) == 1

    gone = run_module(emu, MODULE, **absent_args(cpfs))
    assert gone["changed"] is True and gone["diff"]["before"]["export_id"] == ps["export_id"], gone
    assert emu.protocol_services() == [] and emu.exports() == []
    mark = len(emu.calls)
    assert run_module(emu, MODULE, **absent_args(cpfs))["changed"] is False
    assert run_module(emu, MODULE, check=True, **absent_args(cpfs))["changed"] is False
    assert writes(emu, mark) == []


def test_second_export_on_the_same_service_and_delete_takes_both(emu, cpfs):
    root = run_module(emu, MODULE, **present_args(cpfs))["protocol_service"]
    mark = len(emu.calls)
    data = run_module(emu, MODULE, **present_args(cpfs, export_path="/data/"))
    assert data["changed"] is True and writes(emu, mark) == ["CreateProtocolMountTarget"]
    ps = data["protocol_service"]
    assert ps["protocol_service_id"] == root["protocol_service_id"] and ps["export_id"] != root["export_id"]
    assert ps["nfs_mount_source"].endswith(":/data/")
    assert (
        data["diff"]["before"]["export_id"] == ""
        and data["diff"]["before"]["protocol_service_id"] == ps["protocol_service_id"]
    )
    assert run_module(emu, MODULE, **present_args(cpfs, export_path="/data/"))["changed"] is False
    assert sorted(e["Path"] for e in emu.exports()) == ["/", "/data/"]

    # The service cannot be deleted while it has exports: absent deletes both, then the service.
    assert run_module(emu, MODULE, **absent_args(cpfs))["changed"] is True
    assert emu.protocol_services() == [] and emu.exports() == []


@pytest.mark.parametrize("change,option", BAD_PROTOCOL_SERVICE_OPTIONS)
def test_bad_input_fails_before_any_api_call(emu, cpfs, change, option):
    mark = len(emu.calls)
    result = run_module(emu, MODULE, **present_args(cpfs, **change))
    assert result["failed"] is True and option in result["msg"], result
    assert emu.calls[mark:] == []


def test_faults_on_create_and_delete_are_retried_without_duplicates(emu, cpfs, monkeypatch):
    # the retry loop lives in _alicloud_client and reads backoff_delay there
    from ansible_collections.scc.training.plugins.module_utils import _alicloud_client

    monkeypatch.setattr(_alicloud_client, "backoff_delay", lambda attempt, **kw: 0.01)  # the delays are not under test
    for kind in ("throttling", "unavailable", "drop_after"):
        before = emu.faults_injected
        emu.inject(kind, action="CreateProtocolService")
        emu.inject(kind, action="CreateProtocolMountTarget")
        result = run_module(emu, MODULE, **present_args(cpfs))
        assert result["changed"] is True and result["protocol_service"]["export_status"] == "ACTIVE", (kind, result)
        assert emu.faults_injected - before == 2, kind
        assert len(emu.protocol_services()) == 1 and len(emu.exports()) == 1, kind
        emu.inject(kind, action="DeleteProtocolMountTarget")
        emu.inject(kind, action="DeleteProtocolService")
        assert run_module(emu, MODULE, **absent_args(cpfs))["changed"] is True, kind
        assert emu.faults_injected - before == 4, kind
        assert emu.protocol_services() == [] and emu.exports() == [], kind


def test_api_error_is_reported_with_code_and_request_id(emu, cpfs):
    result = run_module(emu, MODULE, **present_args(cpfs, vswitch_id="vsw-doesnotexist"))
    assert result["failed"] is True and result["error"]["code"] == "InvalidVSwitchId.NotFound", result
    assert result["error"]["request_id"] in result["msg"]
    assert emu.protocol_services() == []


def test_provision_and_teardown_with_cpfs_nfs(emu, tmp_path):
    """provision.yml with scc_cloud_cpfs_protocol: cpfs-nfs makes the service and export instead of a
    mount target and reports the mount source; teardown.yml deletes the export and the service before
    the file system (which the cloud refuses otherwise). Re-runs of both playbooks are
    test_cloud_playbooks.py's; the module's own re-runs are above: two playbook runs keep this short.
    The node is the example's (inventories/cloud/cloud.example.yml): an ebmgn8v on a UEFI image, with its two Elastic
    RDMA Interfaces and jumbo frames, in no HPC cluster."""
    vars_file = tmp_path / "cloud.yml"
    cloud_vars(
        emu,
        vars_file,
        scc_cloud_name="psnfs",
        scc_cloud_instance_count=1,
        scc_cloud_vpc_cidr="10.20.0.0/16",
        scc_cloud_vswitch_cidr="10.20.0.0/24",
        scc_cloud_cpfs_protocol="cpfs-nfs",
        scc_cloud_tags={"managed-by": "scc.training", "scc-cluster": "psnfs"},
    )
    env = playbook_env(emu)

    def playbook(name):
        rc, out = run_playbook(env, name, vars_file)
        counts = recap(out)
        assert rc == 0 and counts["failed"] == counts["unreachable"] == 0, out[-3000:]
        return counts["changed"], out

    def ours(table):
        return [row for row in getattr(emu, table)() if row.get("VpcId") in vpc_ids]

    changed, out = playbook("provision.yml")
    vpc_ids = {v["VpcId"] for v in emu.vpcs() if v["VpcName"] == "psnfs-vpc"}
    assert changed >= 5 and len(vpc_ids) == 1
    services, exports = ours("protocol_services"), ours("exports")
    assert len(services) == 1 and len(exports) == 1 and ours("mount_targets") == []
    source = "%s:/" % exports[0]["ProtocolMountTargetDomain"]
    assert "cpfs_nfs_mount_source: %s\n" % source in out, out[-2000:]
    [node] = [i for i in emu.instances() if i["VpcAttributes"]["VpcId"] in vpc_ids]
    assert (
        node["InstanceType"] == "ecs.ebmgn8v.48xlarge"
        and node["HpcClusterId"] == ""
        and not [h for h in emu.hpc_clusters() if h["Name"].startswith("psnfs")]
    )
    modes = [n.get("NetworkInterfaceTrafficMode") for n in node["NetworkInterfaces"]["NetworkInterface"]]
    assert modes == [None, "HighPerformance", "HighPerformance"]
    assert "eri_per_node: 2\n" in out and "erdma_mtu: 8500\n" in out, out[-2000:]

    mark = len(emu.calls)
    changed, _out = playbook("teardown.yml")
    deletes = [
        a for a in writes(emu, mark) if a in ("DeleteProtocolMountTarget", "DeleteProtocolService", "DeleteFileSystem")
    ]
    assert deletes == ["DeleteProtocolMountTarget", "DeleteProtocolService", "DeleteFileSystem"]
    assert (
        ours("protocol_services") == []
        and ours("exports") == []
        and emu.vpcs() == [v for v in emu.vpcs() if v["VpcId"] not in vpc_ids]
    )
