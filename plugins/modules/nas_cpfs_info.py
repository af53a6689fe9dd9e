#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)

from __future__ import annotations

DOCUMENTATION = r"""
module: nas_cpfs_info
short_description: List CPFS file systems by name, tags, VPC or ID
version_added: 0.2.0
description:
  - Read-only NAS C(DescribeFileSystems) with C(FileSystemType=cpfs), every page.
extends_documentation_fragment: [scc.training.alicloud, scc.training.alicloud.api, scc.training.alicloud.info_attributes]
options:
  name:
    description:
      - The file system's description, matched exactly.
      - M(scc.training.nas_cpfs) keeps its O(scc.training.nas_cpfs#module:name) there.
    type: str
  tags:
    description: Only file systems that carry all these tags.
    type: dict
    default: {}
  vpc_id:
    description: Only file systems in this VPC.
    type: str
  file_system_id:
    description: A CPFS file system ID (C(cpfs-...)).
    type: str
author: scc.training developers (!UNKNOWN)
"""

EXAMPLES = r"""
- name: Our CPFS, if it exists
  scc.training.nas_cpfs_info:
    name: bert-cpfs
    tags:
      managed-by: scc.training
  register: cpfs
"""

RETURN = r"""
file_systems:
  description: >-
    The CPFS file systems that match, oldest first, each in the form in which
    M(scc.training.nas_cpfs) returns RV(scc.training.nas_cpfs#module:file_system).
  returned: always
  type: list
  elements: dict
  sample: [{file_system_id: cpfs-125487a1b2c3, description: bert-cpfs, status: Running, capacity: 3600,
            mount_targets: [cpfs-125487a1b2c3-000001.cn-shanghai.cpfs.nas.aliyuncs.com], tags: {managed-by: scc.training}}]
"""

from ansible_collections.scc.training.plugins.module_utils._alicloud import (
    CPFS,
    AlicloudModule,
)


def main():
    spec = dict(file_system_id=dict(type="str"), name=dict(type="str"), tags=dict(type="dict", default={}))
    module = AlicloudModule(dict(spec, vpc_id=dict(type="str")))
    p = module.params
    # nas_cpfs keeps its name as the file system's description.
    where = {"Description": p["name"]}
    module.run_info(CPFS, "file_systems", {"VpcId": p["vpc_id"]}, where, p["tags"], p["file_system_id"])


if __name__ == "__main__":
    main()
