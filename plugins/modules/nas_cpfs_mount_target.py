#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)

from __future__ import annotations

DOCUMENTATION = r"""
module: nas_cpfs_mount_target
short_description: Create or delete the mount target of a CPFS file system in a VSwitch
version_added: 0.1.0
description:
  - Keeps one mount target of CPFS file system O(file_system_id) in VSwitch O(vswitch_id)
    (NAS API 2017-06-26 C(CreateMountTarget), C(DescribeMountTargets), C(DeleteMountTarget)).
  - Waits until the mount target is C(Active) and returns its domain, which hosts mount;
    on O(state=absent), until it is gone.
  - Two mount targets of the file system in one VSwitch fail the task rather than guessing.
extends_documentation_fragment: [scc.training.alicloud, scc.training.alicloud.api, scc.training.alicloud.state, scc.training.alicloud.wait]
options:
  file_system_id:
    description: CPFS file system (C(cpfs-...)).
    type: str
    required: true
  vpc_id:
    description: VPC of the mount target. Required to create.
    type: str
  vswitch_id:
    description: VSwitch of the mount target; it identifies the mount target.
    type: str
    required: true
  security_group_id:
    description: Security group of the mount target.
    type: str
  wait_timeout:
    default: 900
author: scc.training developers (!UNKNOWN)
"""

EXAMPLES = r"""
- name: Mount target of the CPFS in the cluster's VSwitch
  scc.training.nas_cpfs_mount_target:
    file_system_id: "{{ cpfs.file_system.file_system_id }}"
    vpc_id: "{{ vpc.vpc.vpc_id }}"
    vswitch_id: "{{ vsw.vswitch.vswitch_id }}"
  register: mount
"""

RETURN = r"""
mount_target:
  description: The mount target; hosts mount its domain (empty after O(state=absent)).
  returned: always
  type: dict
  contains:
    mount_target_domain:
      description: Domain that hosts mount.
      type: str
      sample: cpfs-125487a1b2c3-000001.cn-shanghai.cpfs.nas.aliyuncs.com
    status:
      description: C(Pending), C(Active) or C(Inactive).
      type: str
      sample: Active
    vpc_id:
      description: VPC of the mount target.
      type: str
      sample: vpc-uf6f7l4fg90oyyy
    vswitch_id:
      description: VSwitch of the mount target, which identifies it.
      type: str
      sample: vsw-uf6f7l4fg90oxxx
"""

from ansible_collections.scc.training.plugins.module_utils._alicloud import (
    MOUNT_TARGET,
    AlicloudModule,
)


def validate(params):
    if not params["file_system_id"].startswith("cpfs-"):
        return ["file_system_id %r is not a CPFS file system id (cpfs-...)" % params["file_system_id"]]
    return []


def scope(module):
    return {"FileSystemId": module.params["file_system_id"]}


def find(module):
    return module.find_one(MOUNT_TARGET, "vswitch_id", scope(module), where={"VswId": module.params["vswitch_id"]})


def present(module):
    p = module.params
    target = find(module)
    if not target and not p["vpc_id"]:
        module.fail_json(msg="vpc_id is required to create a mount target")
    params = {
        "FileSystemId": p["file_system_id"],
        "NetworkType": "Vpc",
        "VpcId": p["vpc_id"],
        "VSwitchId": p["vswitch_id"],
        "SecurityGroupId": p["security_group_id"],
    }
    return module.create_unless_found(MOUNT_TARGET, target, params, scope(module), ready="Active")


def absent(module):
    return module.delete_if_found(MOUNT_TARGET, find(module), scope(module), wait_gone=True)


def main():
    spec = dict(
        file_system_id=dict(type="str", required=True),
        vpc_id=dict(type="str"),
        vswitch_id=dict(type="str", required=True),
        security_group_id=dict(type="str"),
    )
    module = AlicloudModule.for_state(spec, wait_timeout=900, validate=validate)
    module.run_state(present, absent, MOUNT_TARGET.view, "mount_target")


if __name__ == "__main__":
    main()
