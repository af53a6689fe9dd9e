#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)

from __future__ import annotations

DOCUMENTATION = r"""
module: nas_cpfs_mount_target
short_description: Create or delete the mount target of a CPFS file system in a VSwitch
version_added: 0.2.0
description:
  - Keeps one mount target of CPFS file system O(file_system_id) in VSwitch O(vswitch_id)
    (NAS API 2017-06-26 C(CreateMountTarget), C(DescribeMountTargets), C(DeleteMountTarget)).
  - Waits until the mount target is C(Active) and returns its domain, which hosts mount.
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
  state:
    description: Whether the mount target exists.
    type: str
    choices: [present, absent]
    default: present
  wait:
    description: Wait until a new mount target is C(Active), or a deleted one is gone.
    type: bool
    default: true
  wait_timeout:
    description: Seconds to wait.
    type: int
    default: 900
extends_documentation_fragment:
  - scc.training.alicloud
  - scc.training.alicloud.attributes
author:
  - scc.training developers (!UNKNOWN)
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
  description: The mount target (empty after O(state=absent)).
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
      description: VPC.
      type: str
      sample: vpc-uf6f7l4fg90oyyy
    vswitch_id:
      description: VSwitch.
      type: str
      sample: vsw-uf6f7l4fg90oxxx
"""

from ansible_collections.scc.training.plugins.module_utils._alicloud import (
    AlicloudModule,
)


def view(target):
    if not target:
        return {}
    return dict(
        mount_target_domain=target.get("MountTargetDomain"),
        status=target.get("Status"),
        network_type=target.get("NetworkType"),
        vpc_id=target.get("VpcId"),
        vswitch_id=target.get("VswId") or target.get("VSwitchId"),
    )


def find(module, domain=None):
    params = {"FileSystemId": module.params["file_system_id"]}
    found = module.api.paginate("nas", "DescribeMountTargets", params, ("MountTargets", "MountTarget"))
    if domain:
        return next((t for t in found if t.get("MountTargetDomain") == domain), None)
    vsw = module.params["vswitch_id"]
    return next((t for t in found if (t.get("VswId") or t.get("VSwitchId")) == vsw), None)


def present(module):
    p = module.params
    target = find(module)
    if target:
        return False, target
    if not p["vpc_id"]:
        module.fail_json(msg="vpc_id is required to create a mount target")
    params = {
        "FileSystemId": p["file_system_id"],
        "NetworkType": "Vpc",
        "VpcId": p["vpc_id"],
        "VSwitchId": p["vswitch_id"],
        "SecurityGroupId": p["security_group_id"],
    }
    if module.check_mode:
        return True, {"VpcId": p["vpc_id"], "VswId": p["vswitch_id"]}
    domain, _reply = module.api.create(
        "nas", "CreateMountTarget", params, "MountTargetDomain", lambda d: find(module, d) is not None
    )
    target = find(module, domain)
    if p["wait"]:
        target = module.wait(
            lambda: find(module, domain), lambda t: t and t.get("Status") == "Active", "mount target %s" % domain
        )
    return True, target


def absent(module):
    target = find(module)
    if not target:
        return False, None
    if not module.check_mode:
        domain = target["MountTargetDomain"]
        module.delete(
            "nas", "DeleteMountTarget", {"FileSystemId": module.params["file_system_id"], "MountTargetDomain": domain}
        )
        if module.params["wait"]:
            module.wait(lambda: find(module, domain), lambda t: t is None, "mount target %s" % domain)
    return True, target


def main():
    module = AlicloudModule(
        argument_spec=dict(
            file_system_id=dict(type="str", required=True),
            vpc_id=dict(type="str"),
            vswitch_id=dict(type="str", required=True),
            security_group_id=dict(type="str"),
            state=dict(type="str", default="present", choices=["present", "absent"]),
            wait=dict(type="bool", default=True),
            wait_timeout=dict(type="int", default=900),
        ),
        supports_check_mode=True,
    )
    if not module.params["file_system_id"].startswith("cpfs-"):
        module.fail_json(
            msg="file_system_id %r is not a CPFS file system id (cpfs-...)" % module.params["file_system_id"]
        )
    module.run_state(present, absent, view, "mount_target")


if __name__ == "__main__":
    main()
