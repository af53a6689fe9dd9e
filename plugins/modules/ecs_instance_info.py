#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)

from __future__ import annotations

DOCUMENTATION = r"""
module: ecs_instance_info
short_description: List ECS instances by name, tags, type, VPC or HPC cluster
version_added: 0.1.0
description:
  - Read-only C(DescribeInstances), every page, filtered on the server and by every tag in O(tags).
extends_documentation_fragment: [scc.training.alicloud, scc.training.alicloud.api, scc.training.alicloud.info_attributes]
options:
  instance_ids:
    description:
      - Only these instances, any number (asked in calls of 100, the most C(DescribeInstances) takes).
      - Empty or unset, instances are not filtered by id.
    type: list
    elements: str
  name:
    description: Instance name, matched exactly (M(scc.training.ecs_instance) gives a whole set one name).
    type: str
  tags:
    description: Tags an instance must carry, all of them.
    type: dict
    default: {}
  instance_type:
    description: Only this instance type.
    type: str
  vpc_id:
    description: VPC that the instances are in.
    type: str
  hpc_cluster_id:
    description: HPC cluster the instances belong to.
    type: str
  status:
    description: Only instances in this status.
    type: str
    choices: [Pending, Running, Starting, Stopping, Stopped]
author: scc.training developers (!UNKNOWN)
"""

EXAMPLES = r"""
- name: The running GPU nodes of the cluster
  scc.training.ecs_instance_info:
    tags:
      managed-by: scc.training
    status: Running
  register: nodes
"""

RETURN = r"""
instances:
  description: Matching instances, oldest first; the same fields as M(scc.training.ecs_instance) returns.
  returned: always
  type: list
  elements: dict
  sample: [{instance_id: i-uf6f5bzd8y1v1tj1t6vq, status: Running, private_ip_addresses: [192.168.1.10],
            rdma_ip_addresses: [10.10.0.5], gpu_amount: 8, tags: {managed-by: scc.training}}]
"""

from ansible_collections.scc.training.plugins.module_utils._alicloud import (
    INSTANCE,
    AlicloudModule,
)


def main():
    module = AlicloudModule(
        dict(
            instance_ids=dict(type="list", elements="str"),
            name=dict(type="str"),
            tags=dict(type="dict", default={}),
            instance_type=dict(type="str"),
            vpc_id=dict(type="str"),
            hpc_cluster_id=dict(type="str"),
            status=dict(type="str", choices=["Pending", "Running", "Starting", "Stopping", "Stopped"]),
        ),
    )
    p = module.params
    scope = {
        "InstanceName": p["name"],
        "InstanceType": p["instance_type"],
        "VpcId": p["vpc_id"],
        "HpcClusterId": p["hpc_cluster_id"],
        "Status": p["status"],
    }
    module.run_info(INSTANCE, "instances", scope, {"InstanceName": p["name"]}, p["tags"], ids=p["instance_ids"] or None)


if __name__ == "__main__":
    main()
