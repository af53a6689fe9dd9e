#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)

from __future__ import annotations

DOCUMENTATION = r"""
module: nas_cpfs_protocol_service
short_description: Create or delete the CPFS-NFS protocol service of a CPFS file system and its NFS export
version_added: 0.1.0
description:
  - Keeps the NFS protocol service of CPFS file system O(file_system_id) in VSwitch O(vswitch_id), and
    one export of directory O(export_path) on it, so that hosts can mount CPFS over NFSv3 without the
    CPFS client (NAS API 2017-06-26 C(CreateProtocolService), C(DescribeProtocolService),
    C(DeleteProtocolService), C(CreateProtocolMountTarget), C(DescribeProtocolMountTarget),
    C(DeleteProtocolMountTarget)).
  - One module for both, because neither is useful alone; a service without an export cannot be
    mounted, an export cannot exist without its service, and a service can only be deleted after its
    exports. The result carries the mount source for the C(scc.training.cpfs_mount) role.
  - Waits until the service is C(Running) and the export C(ACTIVE); on O(state=absent) deletes every
    export of the service, waits until they are gone, then deletes the service.
  - The file system must be C(Running) (M(scc.training.nas_cpfs) waits for that).
extends_documentation_fragment: [scc.training.alicloud, scc.training.alicloud.api, scc.training.alicloud.state, scc.training.alicloud.wait]
options:
  file_system_id:
    description: CPFS file system (C(cpfs-...)) that the protocol service serves.
    type: str
    required: true
  vpc_id:
    description: VPC of the protocol service and its export. Required to create.
    type: str
  vswitch_id:
    description: VSwitch of the protocol service and its export; with O(file_system_id) it identifies the service.
    type: str
    required: true
  export_path:
    description:
      - Directory of the file system to export; it identifies the export within the service.
      - Starts and ends with C(/); the root directory is C(/). The directory must exist on the file system.
    type: str
    default: /
  access_group_name:
    description: Permission group of the export.
    type: str
    default: DEFAULT_VPC_GROUP_NAME
  throughput:
    description: Throughput of the protocol service in MB/s; omitted, the service's default.
    type: int
  state:
    description:
      - Whether the protocol service and its export exist. V(absent) deletes the service and every export on it.
  wait_timeout:
    description: Seconds to wait for each of the service and the export.
    default: 1800
notes:
  - The mount source is C(<protocol_mount_target_domain>:<export_path>), the C(server:/export) form of
    C(mount -t nfs -o vers=3); only NFSv3 is offered by CPFS-NFS.
  - Not confirmed against the real service from here (no captured reply or mount command was
    found); that the NFS server presents the export under O(export_path) itself is an assumption.
    If the console shows another path for the export, set C(cpfs_mount_source) to that instead.
  - In the lab this is exercised against the offline emulator (C(python -m lab cloud)), a stand-in
    for the NAS API; nothing is mounted from it.
author: scc.training developers (!UNKNOWN)
"""

EXAMPLES = r"""
- name: CPFS-NFS protocol service and export of the whole file system
  scc.training.nas_cpfs_protocol_service:
    file_system_id: "{{ cpfs.file_system.file_system_id }}"
    vpc_id: "{{ vpc.vpc.vpc_id }}"
    vswitch_id: "{{ vsw.vswitch.vswitch_id }}"
  register: cpfs_nfs

- name: Mount it on the nodes
  ansible.builtin.include_role:
    name: scc.training.cpfs_mount
  vars:
    cpfs_mount_protocol: cpfs-nfs
    cpfs_mount_source: "{{ cpfs_nfs.protocol_service.nfs_mount_source }}"

- name: Delete the protocol service and its exports
  scc.training.nas_cpfs_protocol_service:
    file_system_id: "{{ cpfs.file_system.file_system_id }}"
    vswitch_id: "{{ vsw.vswitch.vswitch_id }}"
    state: absent
"""

RETURN = r"""
protocol_service:
  description: The protocol service and its export (empty after O(state=absent)).
  returned: always
  type: dict
  contains:
    protocol_service_id:
      description: Protocol service ID (empty in check mode before it exists).
      type: str
      sample: ptc-197ed6a00f2b1234
    status:
      description: C(Creating), C(Running), ...
      type: str
      sample: Running
    protocol_type:
      description: Always C(NFS).
      type: str
      sample: NFS
    vpc_id:
      description: VPC.
      type: str
      sample: vpc-uf6f7l4fg90oyyy
    vswitch_id:
      description: VSwitch.
      type: str
      sample: vsw-uf6f7l4fg90oxxx
    export_id:
      description: Export ID (empty in check mode before it exists).
      type: str
      sample: exp-19abf5beab8d1234
    export_path:
      description: Exported directory.
      type: str
      sample: /
    export_status:
      description: C(CREATING), C(ACTIVE), ...
      type: str
      sample: ACTIVE
    protocol_mount_target_domain:
      description: NFS server name of the export.
      type: str
      sample: ptc-197ed6a00f2b1234-a1b2c3.cn-shanghai.cpfs.aliyuncs.com
    nfs_mount_source:
      description: C(<domain>:<export_path>), the value for C(cpfs_mount_source) with C(cpfs_mount_protocol=cpfs-nfs).
      type: str
      sample: ptc-197ed6a00f2b1234-a1b2c3.cn-shanghai.cpfs.aliyuncs.com:/
"""

import re

from ansible_collections.scc.training.plugins.module_utils._alicloud import (
    EXPORT,
    PROTOCOL_SERVICE,
    AlicloudModule,
    find_all,
)

# Export path rules of CreateProtocolMountTarget: 1 to 1024 characters, starts and ends with "/".
EXPORT_PATH = re.compile(r"^/(\S*/)?$")
SERVICE_UP = "Running"
# DescribeProtocolService "Status" (alibabacloud_nas20170626 3.7.5 DescribeProtocolServiceResponseBody, "Valid
# values"): Creating, Starting, Running, Updating, Deleting, Stopping, Stopped. A new service that is stopping,
# stopped or being deleted will not come up: the wait fails at once instead of running to its timeout.
SERVICE_FAILED = ("Deleting", "Stopping", "Stopped")
EXPORT_UP = "ACTIVE"


def validate(params):
    errors = []
    if not params["file_system_id"].startswith("cpfs-"):
        errors.append("file_system_id %r is not a CPFS file system id (cpfs-...)" % params["file_system_id"])
    path = params["export_path"]
    if len(path) > 1024 or not EXPORT_PATH.match(path):
        errors.append(
            "export_path %r must start and end with '/' (the root is '/'), without spaces, at most 1024 characters"
            % path
        )
    if params["state"] == "present" and not params["vpc_id"]:
        errors.append("vpc_id is required with state=present")
    if params["throughput"] is not None and params["throughput"] <= 0:
        errors.append("throughput must be a positive number of MB/s, got %d" % params["throughput"])
    return errors


def view(service, export=None):
    if not service:
        return {}
    export = export or {}
    domain = export.get("ProtocolMountTargetDomain") or ""
    path = export.get("Path") or ""
    return dict(
        protocol_service_id=service.get("ProtocolServiceId") or "",
        status=service.get("Status"),
        protocol_type=service.get("ProtocolType"),
        vpc_id=service.get("VpcId"),
        vswitch_id=service.get("VSwitchId"),
        export_id=export.get("ExportId") or "",
        export_path=path,
        export_status=export.get("Status"),
        protocol_mount_target_domain=domain,
        nfs_mount_source="%s:%s" % (domain, path) if domain else "",
    )


def view_found(found):
    """``view`` of a ``(service, export)`` pair, the resource run_state passes around."""
    return view(*found)


def scope(module):
    return {"FileSystemId": module.params["file_system_id"]}


def find_service(module):
    where = {"VSwitchId": module.params["vswitch_id"], "ProtocolType": "NFS"}
    return module.find_one(PROTOCOL_SERVICE, "vswitch_id", scope(module), where)


def find_export(module, service_id):
    where = {"ProtocolServiceId": service_id, "Path": module.params["export_path"]}
    return module.find_one(EXPORT, "export_path", scope(module), where)


def ensure_service(module):
    p = module.params
    params = {
        "FileSystemId": p["file_system_id"],
        "ProtocolType": "NFS",
        "ProtocolSpec": "General",
        "Throughput": p["throughput"],
        "VpcId": p["vpc_id"],
        "VSwitchId": p["vswitch_id"],
    }
    changed, _before, service = module.create_unless_found(
        PROTOCOL_SERVICE, find_service(module), params, scope(module), ready=SERVICE_UP, failed=SERVICE_FAILED
    )
    return changed, service


def ensure_export(module, service):
    p = module.params
    service_id = service.get("ProtocolServiceId")
    export = find_export(module, service_id) if service_id else None
    if export and export.get("VSwitchId") != p["vswitch_id"]:
        module.fail_json(
            msg="export_path: export %s of %s is in %s, not %s; not changed by this module"
            % (export["ExportId"], p["export_path"], export.get("VSwitchId"), p["vswitch_id"])
        )
    params = {
        "FileSystemId": p["file_system_id"],
        "ProtocolServiceId": service_id,
        "Path": p["export_path"],
        "VpcId": p["vpc_id"],
        "VSwitchId": p["vswitch_id"],
        "AccessGroupName": p["access_group_name"],
    }
    changed, _before, export = module.create_unless_found(EXPORT, export, params, scope(module), ready=EXPORT_UP)
    return changed, export


def present(module):
    """Before is what existed already: no service, or the service without the export it lacked."""
    service_changed, service = ensure_service(module)
    export_changed, export = ensure_export(module, service)
    before = (None, None) if service_changed else (service, None if export_changed else export)
    return service_changed or export_changed, before, (service, export)


def absent(module):
    service = find_service(module)
    if not service:
        return False, (None, None), (None, None)
    export = find_export(module, service["ProtocolServiceId"])
    if not module.check_mode:
        # A service with exports cannot be deleted: exports first, and wait until they are gone.
        where = {"ProtocolServiceId": service["ProtocolServiceId"]}
        exports = find_all(module.api, EXPORT, scope(module), where)
        for item in exports:
            module.remove(EXPORT, item, scope(module))
        if exports:
            module.wait(
                lambda: find_all(module.api, EXPORT, scope(module), where),
                lambda found: not found,
                "exports of %s" % service["ProtocolServiceId"],
            )
        module.remove(PROTOCOL_SERVICE, service, scope(module), wait_gone=True)
    return True, (service, export), (None, None)


def main():
    spec = dict(
        file_system_id=dict(type="str", required=True),
        vpc_id=dict(type="str"),
        vswitch_id=dict(type="str", required=True),
        export_path=dict(type="str", default="/"),
        access_group_name=dict(type="str", default="DEFAULT_VPC_GROUP_NAME"),
        throughput=dict(type="int"),
    )
    module = AlicloudModule.for_state(spec, wait_timeout=1800, validate=validate)
    module.run_state(present, absent, view_found, "protocol_service")


if __name__ == "__main__":
    main()
