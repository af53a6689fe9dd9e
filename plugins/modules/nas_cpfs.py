#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)

from __future__ import annotations

DOCUMENTATION = r"""
module: nas_cpfs
short_description: Create or delete a CPFS file system, found by name and tags
version_added: 0.2.0
description:
  - Keeps one CPFS file system whose description is O(name) and which carries O(tags)
    (NAS API 2017-06-26 C(CreateFileSystem) with C(FileSystemType=cpfs), C(DescribeFileSystems),
    C(DeleteFileSystem)).
  - Waits until the file system is C(Running); in real life that takes 20 to 40 minutes.
  - Size and storage class cannot change here; different values for an existing file system fail.
  - O(state=absent) deletes the file system's mount targets first (the API refuses to delete a
    file system that has some), then the file system, and waits until both are gone.
options:
  name:
    description: Name, stored as the file system description (2 to 128 characters).
    type: str
    required: true
  zone_id:
    description: Zone. Required to create.
    type: str
  vpc_id:
    description: VPC. Required to create.
    type: str
  vswitch_id:
    description: VSwitch. Required to create.
    type: str
  storage_type:
    description: CPFS storage class.
    type: str
    choices: [advance_100, advance_200, economic]
    default: advance_100
  capacity:
    description: Capacity in GiB (at least 3600 for CPFS). Required to create.
    type: int
  tags:
    description: Tags, set at creation; they identify the file system together with O(name).
    type: dict
    default: {}
  state:
    description: Whether the file system exists.
    type: str
    choices: [present, absent]
    default: present
  wait:
    description: Wait until a new file system is C(Running), or a deleted one is gone.
    type: bool
    default: true
  wait_timeout:
    description: Seconds to wait.
    type: int
    default: 3600
extends_documentation_fragment:
  - scc.training.alicloud
  - scc.training.alicloud.attributes
author:
  - scc.training developers (!UNKNOWN)
"""

EXAMPLES = r"""
- name: CPFS for the training data
  scc.training.nas_cpfs:
    name: bert-cpfs
    zone_id: cn-shanghai-b
    vpc_id: "{{ vpc.vpc.vpc_id }}"
    vswitch_id: "{{ vsw.vswitch.vswitch_id }}"
    capacity: 3600
    tags:
      managed-by: scc.training
  register: cpfs
"""

RETURN = r"""
file_system:
  description: The file system (empty after O(state=absent)).
  returned: always
  type: dict
  contains:
    file_system_id:
      description: File system ID.
      type: str
      sample: cpfs-125487a1b2c3
    status:
      description: C(Pending), C(Running) or C(Stopped).
      type: str
      sample: Running
    capacity:
      description: Capacity in GiB.
      type: int
      sample: 3600
    storage_type:
      description: Storage class.
      type: str
      sample: advance_100
    zone_id:
      description: Zone.
      type: str
      sample: cn-shanghai-b
    vpc_id:
      description: VPC.
      type: str
      sample: vpc-uf6f7l4fg90oyyy
    mount_targets:
      description: Mount target domains.
      type: list
      elements: str
      sample: [cpfs-125487a1b2c3-000001.cn-shanghai.cpfs.nas.aliyuncs.com]
    tags:
      description: Tags as a dict.
      type: dict
      sample: {managed-by: scc.training}
"""

from ansible_collections.scc.training.plugins.module_utils._alicloud import (
    AlicloudModule,
    tags_from_api,
)

MIN_CAPACITY = 3600


def validate(params):
    errors = []
    if not 2 <= len(params["name"]) <= 128:
        errors.append("name must be 2 to 128 characters")
    if params["state"] == "present":
        for option in ("zone_id", "vpc_id", "vswitch_id", "capacity"):
            if params[option] in (None, ""):
                errors.append("%s is required with state=present" % option)
        if params["capacity"] is not None and params["capacity"] < MIN_CAPACITY:
            errors.append("capacity must be at least %d GiB for CPFS, got %d" % (MIN_CAPACITY, params["capacity"]))
    if len(params["tags"] or {}) > 20:
        errors.append("tags: at most 20 tags")
    return errors


def view(fs):
    if not fs:
        return {}
    targets = (fs.get("MountTargets") or {}).get("MountTarget", []) or []
    return dict(
        file_system_id=fs.get("FileSystemId"),
        description=fs.get("Description"),
        file_system_type=fs.get("FileSystemType"),
        status=fs.get("Status"),
        capacity=fs.get("Capacity"),
        storage_type=fs.get("StorageType"),
        zone_id=fs.get("ZoneId"),
        vpc_id=fs.get("VpcId"),
        mount_targets=[t.get("MountTargetDomain") for t in targets],
        tags=tags_from_api(fs.get("Tags"), "Key", "Value"),
    )


def find(module, fs_id=None):
    params = {"FileSystemType": "cpfs"}
    if fs_id:
        params["FileSystemId"] = fs_id
    found = module.api.paginate("nas", "DescribeFileSystems", params, ("FileSystems", "FileSystem"))
    if fs_id:
        return next((f for f in found if f.get("FileSystemId") == fs_id), None)
    want = module.params["tags"] or {}
    named = [
        f
        for f in found
        if f.get("Description") == module.params["name"]
        and all(tags_from_api(f.get("Tags"), "Key", "Value").get(k) == v for k, v in want.items())
    ]
    if len(named) > 1:
        module.fail_json(msg="name: %d CPFS file systems are named %s" % (len(named), module.params["name"]))
    return named[0] if named else None


def present(module):
    p = module.params
    fs = find(module)
    if fs:
        for key, option in (("Capacity", "capacity"), ("StorageType", "storage_type"), ("ZoneId", "zone_id")):
            if str(fs.get(key)) != str(p[option]):
                module.fail_json(
                    msg="%s: file system %s has %s, not %s; not changed by this module"
                    % (option, fs["FileSystemId"], fs.get(key), p[option])
                )
        return False, fs
    params = {
        "FileSystemType": "cpfs",
        "ProtocolType": "cpfs",
        "StorageType": p["storage_type"],
        "Capacity": p["capacity"],
        "ZoneId": p["zone_id"],
        "VpcId": p["vpc_id"],
        "VSwitchId": p["vswitch_id"],
        "ChargeType": "PayAsYouGo",
        "Description": p["name"],
        "Tag": dict(p["tags"]) or None,
    }
    if module.check_mode:
        return True, params
    fs_id, _reply = module.api.create(
        "nas", "CreateFileSystem", params, "FileSystemId", lambda i: find(module, i) is not None
    )
    fs = find(module, fs_id)
    if p["wait"]:
        fs = module.wait(
            lambda: find(module, fs_id), lambda f: f and f.get("Status") == "Running", "file system %s" % fs_id
        )
    return True, fs


def delete_mount_targets(module, fs_id):
    """A file system with mount targets cannot be deleted: delete them first and wait until gone."""

    def targets():
        return module.api.paginate(
            "nas", "DescribeMountTargets", {"FileSystemId": fs_id}, ("MountTargets", "MountTarget")
        )

    for target in targets():
        module.delete(
            "nas", "DeleteMountTarget", {"FileSystemId": fs_id, "MountTargetDomain": target["MountTargetDomain"]}
        )
    module.wait(targets, lambda found: not found, "mount targets of %s" % fs_id)


def absent(module):
    fs = find(module)
    if not fs:
        return False, None
    if not module.check_mode:
        delete_mount_targets(module, fs["FileSystemId"])
        module.delete("nas", "DeleteFileSystem", {"FileSystemId": fs["FileSystemId"]})
        if module.params["wait"]:
            module.wait(
                lambda: find(module, fs["FileSystemId"]), lambda f: f is None, "file system %s" % fs["FileSystemId"]
            )
    return True, fs


def main():
    module = AlicloudModule(
        argument_spec=dict(
            name=dict(type="str", required=True),
            zone_id=dict(type="str"),
            vpc_id=dict(type="str"),
            vswitch_id=dict(type="str"),
            storage_type=dict(type="str", default="advance_100", choices=["advance_100", "advance_200", "economic"]),
            capacity=dict(type="int"),
            tags=dict(type="dict", default={}),
            state=dict(type="str", default="present", choices=["present", "absent"]),
            wait=dict(type="bool", default=True),
            wait_timeout=dict(type="int", default=3600),
        ),
        supports_check_mode=True,
    )
    errors = validate(module.params)
    if errors:
        module.fail_json(msg="; ".join(errors))
    module.run_state(present, absent, view, "file_system")


if __name__ == "__main__":
    main()
