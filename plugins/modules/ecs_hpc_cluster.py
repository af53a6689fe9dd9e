#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)

from __future__ import annotations

DOCUMENTATION = r"""
module: ecs_hpc_cluster
short_description: Create or delete an ECS HPC cluster, found by name
version_added: 0.2.0
description:
  - Keeps one HPC cluster named O(name) (C(CreateHpcCluster), C(DescribeHpcClusters), C(DeleteHpcCluster)).
    SCC instances (M(scc.training.ecs_instance)) must be created in one.
  - Two HPC clusters with the same name fail the task rather than guessing.
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
  state:
    description: Whether the HPC cluster exists.
    type: str
    choices: [present, absent]
    default: present
extends_documentation_fragment:
  - scc.training.alicloud
  - scc.training.alicloud.attributes
author:
  - scc.training developers (!UNKNOWN)
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
  description: The HPC cluster (empty after O(state=absent)).
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
    AlicloudApiError,
    AlicloudModule,
)


def view(cluster):
    if not cluster:
        return {}
    return dict(
        hpc_cluster_id=cluster.get("HpcClusterId"), name=cluster.get("Name"), description=cluster.get("Description")
    )


def find(module, cluster_id=None):
    params = {"HpcClusterIds": '["%s"]' % cluster_id} if cluster_id else {}
    found = module.api.paginate("ecs", "DescribeHpcClusters", params, ("HpcClusters", "HpcCluster"))
    if cluster_id:
        return next((c for c in found if c.get("HpcClusterId") == cluster_id), None)
    named = [c for c in found if c.get("Name") == module.params["name"]]
    if len(named) > 1:
        module.fail_json(msg="name: %d HPC clusters are named %s" % (len(named), module.params["name"]))
    return named[0] if named else None


def main():
    module = AlicloudModule(
        argument_spec=dict(
            name=dict(type="str", required=True),
            description=dict(type="str"),
            state=dict(type="str", default="present", choices=["present", "absent"]),
        ),
        supports_check_mode=True,
    )
    p = module.params
    if not 2 <= len(p["name"]) <= 64:
        module.fail_json(msg="name must be 2 to 64 characters, got %d" % len(p["name"]))
    changed = False
    try:
        cluster = find(module)
        before = view(cluster)
        if p["state"] == "present" and not cluster:
            changed = True
            params = {"Name": p["name"], "Description": p["description"]}
            cluster = params
            if not module.check_mode:
                cluster_id, _reply = module.api.create(
                    "ecs", "CreateHpcCluster", params, "HpcClusterId", lambda i: find(module, i) is not None
                )
                cluster = find(module, cluster_id)
        elif p["state"] == "absent" and cluster:
            changed = True
            if not module.check_mode:
                try:
                    module.api.call("ecs", "DeleteHpcCluster", {"HpcClusterId": cluster["HpcClusterId"]})
                except AlicloudApiError as exc:
                    if not exc.code.startswith("NotFound") and "NotFound" not in exc.code:
                        raise
            cluster = None
    except AlicloudApiError as exc:
        module.fail_api(exc)
    result = dict(changed=changed, hpc_cluster=view(cluster))
    if module._diff:
        result["diff"] = dict(before=before, after=view(cluster))
    module.exit_json(**result)


if __name__ == "__main__":
    main()
