#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)

from __future__ import annotations

DOCUMENTATION = r"""
module: ecs_hpc_cluster
short_description: Create or delete an ECS HPC cluster, found by name
version_added: 0.1.0
description:
  - Keeps one HPC cluster named O(name) (C(CreateHpcCluster), C(DescribeHpcClusters), C(DeleteHpcCluster)).
    SCC instances (M(scc.training.ecs_instance)) must be created in one.
  - Two HPC clusters with the same name fail the task rather than guessing.
extends_documentation_fragment: [scc.training.alicloud, scc.training.alicloud.api, scc.training.alicloud.state]
options:
  name:
    description: HPC cluster name (2 to 64 characters).
    type: str
    required: true
  description:
    description:
      - Description, set at creation.
      - C(playbooks/teardown.yml) deletes only HPC clusters whose description marks them as made by scc.training.
    type: str
author: scc.training developers (!UNKNOWN)
"""

EXAMPLES = r"""
- name: The HPC cluster of the SCC instances
  scc.training.ecs_hpc_cluster:
    name: bert-hpc
    description: "managed-by=scc.training"
  register: hpc
"""

RETURN = r"""
hpc_cluster:
  description: The HPC cluster that SCC instances are created in (empty after O(state=absent)).
  returned: always
  type: dict
  contains:
    hpc_cluster_id:
      description: HPC cluster ID.
      type: str
      sample: hpc-pnlg1ds9rky4a
    name:
      description: Name.
      type: str
      sample: bert-hpc
    description:
      description: Description.
      type: str
      sample: managed-by=scc.training
"""

from ansible_collections.scc.training.plugins.module_utils._alicloud import (
    HPC_CLUSTER,
    AlicloudModule,
)


def validate(params):
    if not 2 <= len(params["name"]) <= 64:
        return ["name must be 2 to 64 characters, got %d" % len(params["name"])]
    return []


def find(module):
    return module.find_one(HPC_CLUSTER, where={"Name": module.params["name"]})


def present(module):
    params = {"Name": module.params["name"], "Description": module.params["description"]}
    return module.create_unless_found(HPC_CLUSTER, find(module), params)


def absent(module):
    return module.delete_if_found(HPC_CLUSTER, find(module))


def main():
    spec = dict(name=dict(type="str", required=True), description=dict(type="str"))
    AlicloudModule.for_state(spec, validate=validate).run_state(present, absent, HPC_CLUSTER.view, "hpc_cluster")


if __name__ == "__main__":
    main()
