"""cpfs_mount's validate.yml: good inputs of every protocol pass, bad ones fail naming the variable."""

import pytest

from tests.unit.roles.validate_runner import assert_refusal

CASES = {
    "ok_none": ({}, None),
    "ok_bind": (
        {"cpfs_mount_protocol": "bind", "cpfs_mount_source": "/mnt/cpfs", "cpfs_mount_path": "/mnt/shared"},
        None,
    ),
    "ok_nfs": ({"cpfs_mount_protocol": "nfs", "cpfs_mount_source": "0a1b2c.cn-shanghai.nas.aliyuncs.com:/"}, None),
    "ok_cpfs_nfs": (
        {"cpfs_mount_protocol": "cpfs-nfs", "cpfs_mount_source": "cpfs-0237.cn-shenzhen.cpfs.nas.aliyuncs.com:/share"},
        None,
    ),
    "ok_cpfs": (
        {
            "cpfs_mount_protocol": "cpfs",
            "cpfs_mount_source": "cpfs-0237cc41-a.cn-shenzhen.cpfs.nas.aliyuncs.com@tcp:"
            "cpfs-0237cc41-b.cn-shenzhen.cpfs.nas.aliyuncs.com@tcp:/0237cc41",
            "cpfs_mount_client_package": "/root/cpfs-client-1.2.1-centos.x86_64.rpm",
            "cpfs_mount_options": ["_netdev", "flock"],
        },
        None,
    ),
    "bad_protocol": ({"cpfs_mount_protocol": "lustre"}, "cpfs_mount_protocol"),
    "bad_path_relative": (
        {"cpfs_mount_protocol": "bind", "cpfs_mount_source": "/mnt/cpfs", "cpfs_mount_path": "mnt/x"},
        "cpfs_mount_path",
    ),
    "bad_path_root": (
        {"cpfs_mount_protocol": "bind", "cpfs_mount_source": "/mnt/cpfs", "cpfs_mount_path": "/"},
        "cpfs_mount_path",
    ),
    "bad_bind_same": (
        {"cpfs_mount_protocol": "bind", "cpfs_mount_source": "/mnt/cpfs/", "cpfs_mount_path": "/mnt/cpfs"},
        "cpfs_mount_source",
    ),
    "bad_nfs_source": ({"cpfs_mount_protocol": "nfs", "cpfs_mount_source": "/export"}, "cpfs_mount_source"),
    "bad_cpfs_no_tcp": (
        {"cpfs_mount_protocol": "cpfs", "cpfs_mount_source": "server:/fs", "cpfs_mount_client_package": "x.rpm"},
        "cpfs_mount_source",
    ),
    "bad_cpfs_no_client": (
        {"cpfs_mount_protocol": "cpfs", "cpfs_mount_source": "a@tcp:/fs"},
        "cpfs_mount_client_package",
    ),
    "bad_options_string": (
        {"cpfs_mount_protocol": "nfs", "cpfs_mount_source": "h:/", "cpfs_mount_options": "vers=3"},
        "cpfs_mount_options",
    ),
    "bad_options_comma": (
        {"cpfs_mount_protocol": "nfs", "cpfs_mount_source": "h:/", "cpfs_mount_options": ["vers=3,nolock"]},
        "cpfs_mount_options",
    ),
    "bad_proof": ({"cpfs_mount_proof": "yes please"}, "cpfs_mount_proof"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_validate(tmp_path_factory, case):
    assert_refusal("cpfs_mount", CASES, case, tmp_path_factory)
