#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)

from __future__ import annotations

DOCUMENTATION = r"""
module: ecs_hpc_cluster_info
short_description: List ECS HPC clusters by name or ID
version_added: 0.2.0
description:
  - Read-only C(DescribeHpcClusters), every page.
extends_documentation_fragment: [scc.training.alicloud, scc.training.alicloud.api, scc.training.alicloud.info_attributes]
options:
  name:
    description: Name of the HPC cluster, matched exactly.
    type: str
  hpc_cluster_id:
    description: The ID of one HPC cluster (C(hpc-...)).
    type: str
author: scc.training developers (!UNKNOWN)
"""

EXAMPLES = r"""
- name: Is there an HPC cluster for the SCC instances yet?
  scc.training.ecs_hpc_cluster_info:
    name: bert-hpc
  register: hpc
"""

RETURN = r"""
hpc_clusters:
  description:
    - The HPC clusters found, oldest first.
    - Each has the fields of RV(scc.training.ecs_hpc_cluster#module:hpc_cluster).
  returned: always
  type: list
  elements: dict
  sample: [{hpc_cluster_id: hpc-pnlg1ds9rky4a, name: bert-hpc, description: "managed-by=scc.training"}]
"""

from ansible_collections.scc.training.plugins.module_utils._alicloud import (
    HPC_CLUSTER,
    AlicloudModule,
)


def main():
    module = AlicloudModule(dict(hpc_cluster_id=dict(type="str"), name=dict(type="str")))
    wanted = {"Name": module.params["name"]}
    module.run_info(HPC_CLUSTER, "hpc_clusters", where=wanted, resource_id=module.params["hpc_cluster_id"])


if __name__ == "__main__":
    main()
