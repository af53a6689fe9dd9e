"""NAS CPFS resources in the cloud emulator, through the unmodified SDK request classes."""

import time

import pytest
from aliyunsdkcore.acs_exception.exceptions import ServerException
from aliyunsdknas.request.v20170626 import (
    CreateFileSystemRequest,
    CreateMountTargetRequest,
    CreateProtocolMountTargetRequest,
    CreateProtocolServiceRequest,
    DeleteFileSystemRequest,
    DeleteMountTargetRequest,
    DeleteProtocolMountTargetRequest,
    DeleteProtocolServiceRequest,
    DescribeFileSystemsRequest,
    DescribeMountTargetsRequest,
    DescribeProtocolMountTargetRequest,
    DescribeProtocolServiceRequest,
)

from lab.cloud import Timings
from lab.cloud.testing import call, network

EMULATOR_TIMINGS = Timings(file_system=0.1, mount_target=0.05, protocol_service=0.05)


@pytest.fixture
def net(acs):
    return network(acs, cluster=False)


def create_cpfs(acs, net, **extra):
    params = dict(
        FileSystemType="cpfs",
        ProtocolType="cpfs",
        StorageType="advance_100",
        Capacity=3600,
        ZoneId="cn-shanghai-b",
        VpcId=net["vpc"],
        VSwitchId=net["vsw"],
        Description="bert",
    )
    params.update(extra)
    return call(acs, CreateFileSystemRequest.CreateFileSystemRequest, **params)


def error(fn, *args, **kwargs) -> ServerException:
    with pytest.raises(ServerException) as err:
        fn(*args, **kwargs)
    return err.value


def wait(predicate, timeout=5.0):
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def test_cpfs_file_system_pending_to_running_then_deleted(acs, emu, net):
    fs_id = create_cpfs(acs, net, Tags=[{"Key": "owner", "Value": "scc.training"}])["FileSystemId"]
    assert fs_id.startswith("cpfs-")
    described = call(acs, DescribeFileSystemsRequest.DescribeFileSystemsRequest, FileSystemId=fs_id)
    fs = described["FileSystems"]["FileSystem"][0]
    assert (fs["FileSystemType"], fs["ProtocolType"], fs["StorageType"], fs["Capacity"], fs["Status"]) == (
        "cpfs",
        "cpfs",
        "advance_100",
        3600,
        "Pending",
    )
    assert fs["Tags"]["Tag"] == [{"Key": "owner", "Value": "scc.training"}]
    wait(lambda: emu.file_systems()[0]["Status"] == "Running")
    call(acs, DeleteFileSystemRequest.DeleteFileSystemRequest, FileSystemId=fs_id)
    assert emu.file_systems() == []
    err = error(call, acs, DeleteFileSystemRequest.DeleteFileSystemRequest, FileSystemId=fs_id)
    assert (err.get_http_status(), err.get_error_code()) == (404, "InvalidFileSystem.NotFound")


@pytest.mark.parametrize(
    "extra,name",
    [
        ({"FileSystemType": "nosuch"}, "FileSystemType"),
        ({"StorageType": "fast"}, "StorageType"),
        ({"Capacity": 0}, "Capacity"),
        ({"ZoneId": "cn-shanghai-c"}, None),
    ],
)
def test_bad_file_system_parameters_create_nothing(acs, emu, net, extra, name, contract_findings):
    err = error(create_cpfs, acs, net, **extra)
    # Sent on purpose; the values the model lists are found, the others are the emulator's rules.
    assert [f for f in contract_findings() if "nosuch" not in f] == []
    assert err.get_http_status() == 400
    if name:
        assert name in err.get_error_msg()
    assert emu.file_systems() == []


def test_nas_dry_run_is_200_with_an_empty_id(acs, emu, net):
    assert create_cpfs(acs, net, DryRun=True)["FileSystemId"] == ""
    assert emu.file_systems() == []


def test_client_token_on_nas_create(acs, emu, net):
    first = create_cpfs(acs, net, ClientToken="cpfs-0001")
    assert create_cpfs(acs, net, ClientToken="cpfs-0001")["FileSystemId"] == first["FileSystemId"]
    assert len(emu.file_systems()) == 1
    assert (
        error(create_cpfs, acs, net, ClientToken="cpfs-0001", Capacity=7200).get_error_code()
        == "IdempotentParameterMismatch"
    )


def test_mount_target_needs_a_running_file_system(acs, emu, net):
    fs_id = create_cpfs(acs, net)["FileSystemId"]
    mt = dict(FileSystemId=fs_id, NetworkType="Vpc", VpcId=net["vpc"], VSwitchId=net["vsw"])
    assert error(call, acs, CreateMountTargetRequest.CreateMountTargetRequest, **mt).get_http_status() == 403
    wait(lambda: emu.file_systems()[0]["Status"] == "Running")
    domain = call(acs, CreateMountTargetRequest.CreateMountTargetRequest, **mt)["MountTargetDomain"]
    assert domain.startswith(fs_id + "-") and domain.endswith(".cn-shanghai.cpfs.nas.aliyuncs.com")
    wait(lambda: emu.mount_targets()[0]["Status"] == "Active")
    listed = call(acs, DescribeMountTargetsRequest.DescribeMountTargetsRequest, FileSystemId=fs_id)
    assert [(m["MountTargetDomain"], m["VswId"], m["Status"]) for m in listed["MountTargets"]["MountTarget"]] == [
        (domain, net["vsw"], "Active")
    ]
    # The file system cannot go while it has a mount target.
    assert (
        error(call, acs, DeleteFileSystemRequest.DeleteFileSystemRequest, FileSystemId=fs_id).get_http_status() == 403
    )
    call(acs, DeleteMountTargetRequest.DeleteMountTargetRequest, FileSystemId=fs_id, MountTargetDomain=domain)
    assert emu.mount_targets() == []
    call(acs, DeleteFileSystemRequest.DeleteFileSystemRequest, FileSystemId=fs_id)


def test_nfs_protocol_service_and_export(acs, emu, net):
    fs_id = create_cpfs(acs, net)["FileSystemId"]
    wait(lambda: emu.file_systems()[0]["Status"] == "Running")
    ps_id = call(
        acs,
        CreateProtocolServiceRequest.CreateProtocolServiceRequest,
        FileSystemId=fs_id,
        ProtocolType="NFS",
        ProtocolSpec="General",
        VpcId=net["vpc"],
        VSwitchId=net["vsw"],
    )["ProtocolServiceId"]
    services = call(acs, DescribeProtocolServiceRequest.DescribeProtocolServiceRequest, FileSystemId=fs_id)
    assert [p["ProtocolServiceId"] for p in services["ProtocolServices"]] == [ps_id]
    export_id = call(
        acs,
        CreateProtocolMountTargetRequest.CreateProtocolMountTargetRequest,
        FileSystemId=fs_id,
        ProtocolServiceId=ps_id,
        Path="/",
        VpcId=net["vpc"],
        VSwitchId=net["vsw"],
    )["ExportId"]
    wait(lambda: emu.exports()[0]["Status"] == "ACTIVE")
    exports = call(acs, DescribeProtocolMountTargetRequest.DescribeProtocolMountTargetRequest, FileSystemId=fs_id)
    assert [(e["ExportId"], e["Path"]) for e in exports["ProtocolMountTargets"]] == [(export_id, "/")]
    assert (
        error(
            call,
            acs,
            DeleteProtocolServiceRequest.DeleteProtocolServiceRequest,
            FileSystemId=fs_id,
            ProtocolServiceId=ps_id,
        ).get_http_status()
        == 403
    )
    call(
        acs,
        DeleteProtocolMountTargetRequest.DeleteProtocolMountTargetRequest,
        FileSystemId=fs_id,
        ProtocolServiceId=ps_id,
        ExportId=export_id,
    )
    call(acs, DeleteProtocolServiceRequest.DeleteProtocolServiceRequest, FileSystemId=fs_id, ProtocolServiceId=ps_id)
    assert emu.protocol_services() == [] and emu.exports() == []
