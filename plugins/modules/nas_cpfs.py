#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)

from __future__ import annotations

DOCUMENTATION = r"""
module: nas_cpfs
short_description: Create or delete a CPFS file system, found by name and tags
version_added: 0.1.0
description:
  - Keeps one CPFS file system whose description is O(name) and which carries O(tags)
    (NAS API 2017-06-26 C(CreateFileSystem) with C(FileSystemType=cpfs), C(DescribeFileSystems),
    C(DeleteFileSystem)).
  - Waits until the file system is C(Running); in real life that takes 20 to 40 minutes.
  - Size and storage class cannot change here; different values for an existing file system fail.
  - O(state=absent) needs O(tags) or O(file_system_id) (a name alone may match a file system someone
    else made). It deletes the file system's mount targets first (the API refuses to delete a
    file system that has some), then the file system, and waits until both are gone.
extends_documentation_fragment: [scc.training.alicloud, scc.training.alicloud.api, scc.training.alicloud.state, scc.training.alicloud.wait]
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
  file_system_id:
    description: With O(state=absent), delete the file system only if it is this one (C(cpfs-...)).
    type: str
  wait_timeout:
    default: 3600
author: scc.training developers (!UNKNOWN)
"""

EXAMPLES = r"""
- name: CPFS for the training data, waiting until it is Running
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
  description: The CPFS file system, C(Running) unless O(wait=false) (empty after O(state=absent)).
  returned: always
  type: dict
  contains:
    file_system_id:
      description: File system ID.
      type: str
      sample: cpfs-125487a1b2c3
    description:
      description: The file system's description, its O(name).
      type: str
      sample: bert-cpfs
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
    CPFS,
    MOUNT_TARGET,
    AlicloudModule,
    find_all,
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
    if params["state"] == "absent" and not params["tags"] and not params["file_system_id"]:
        errors.append(
            "state=absent needs tags or file_system_id: name %r alone may match a file system another owner made"
            % params["name"]
        )
    if params["state"] == "present" and params["file_system_id"]:
        errors.append("file_system_id is for state=absent only (present finds the file system by name and tags)")
    return errors


def find(module):
    p = module.params
    return module.find_one(CPFS, where={"Description": p["name"]}, tags=p["tags"], resource_id=p["file_system_id"])


def present(module):
    p = module.params
    fs = find(module)
    for key, option in (("Capacity", "capacity"), ("StorageType", "storage_type"), ("ZoneId", "zone_id")):
        if fs and str(fs.get(key)) != str(p[option]):
            module.fail_json(
                msg="%s: file system %s has %s, not %s; not changed by this module"
                % (option, fs["FileSystemId"], fs.get(key), p[option])
            )
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
    return module.create_unless_found(CPFS, fs, params, ready="Running")


def absent(module):
    fs = find(module)
    if fs and not module.check_mode:
        # A file system with mount targets cannot be deleted: delete them first and wait until gone.
        scope = {"FileSystemId": fs["FileSystemId"]}
        for target in find_all(module.api, MOUNT_TARGET, scope):
            module.remove(MOUNT_TARGET, target, scope)
        module.wait(
            lambda: find_all(module.api, MOUNT_TARGET, scope),
            lambda found: not found,
            "mount targets of %s" % fs["FileSystemId"],
        )
    return module.delete_if_found(CPFS, fs, wait_gone=True)


def main():
    spec = dict(
        name=dict(type="str", required=True),
        zone_id=dict(type="str"),
        vpc_id=dict(type="str"),
        vswitch_id=dict(type="str"),
        storage_type=dict(type="str", default="advance_100", choices=["advance_100", "advance_200", "economic"]),
        capacity=dict(type="int"),
        tags=dict(type="dict", default={}),
        file_system_id=dict(type="str"),
    )
    module = AlicloudModule.for_state(spec, wait_timeout=3600, validate=validate)
    module.run_state(present, absent, CPFS.view, "file_system")


if __name__ == "__main__":
    main()
