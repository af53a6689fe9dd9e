"""Option validation and the result view of nas_cpfs_protocol_service (no API involved)."""

import pytest

from ansible_collections.scc.training.plugins.modules import nas_cpfs_protocol_service as mod
from tests.cloud_helpers import BAD_PROTOCOL_SERVICE_OPTIONS

GOOD = dict(
    file_system_id="cpfs-0123abcd",
    vpc_id="vpc-1",
    vswitch_id="vsw-1",
    export_path="/",
    throughput=None,
    state="present",
)


@pytest.mark.parametrize("path", ["/", "/data/", "/data/bert-wiki/"])
def test_good_export_paths_pass(path):
    assert mod.validate(dict(GOOD, export_path=path)) == []


def test_absent_needs_no_vpc():
    assert mod.validate(dict(GOOD, vpc_id=None, state="absent")) == []


@pytest.mark.parametrize("change,option", BAD_PROTOCOL_SERVICE_OPTIONS)
def test_bad_options_name_the_option(change, option):
    errors = mod.validate(dict(GOOD, **change))
    assert len(errors) == 1 and option in errors[0]


def test_view_builds_the_mount_source_only_from_a_real_export():
    service = {
        "ProtocolServiceId": "ptc-1",
        "Status": "Running",
        "ProtocolType": "NFS",
        "VpcId": "vpc-1",
        "VSwitchId": "vsw-1",
    }
    export = {
        "ExportId": "exp-1",
        "Path": "/data/",
        "Status": "ACTIVE",
        "ProtocolMountTargetDomain": "ptc-1-abc.cn-shanghai.cpfs.aliyuncs.com",
    }
    assert mod.view(service, export)["nfs_mount_source"] == "ptc-1-abc.cn-shanghai.cpfs.aliyuncs.com:/data/"
    predicted = mod.view(service, {"Path": "/data/", "VSwitchId": "vsw-1"})  # check mode: no domain yet
    assert predicted["nfs_mount_source"] == "" and predicted["export_id"] == ""
    assert mod.view(None, export) == {}
