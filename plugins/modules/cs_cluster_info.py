#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)

from __future__ import annotations

DOCUMENTATION = r"""
module: cs_cluster_info
short_description: Look up ACK clusters by name, tags or id
version_added: 0.2.0
description:
  - Lists the Container Service for Kubernetes (ACK) clusters of the region (CS API 2015-12-15,
    C(DescribeClustersV1) C(GET /api/v1/clusters), every page) named exactly O(name) (any name when
    omitted), carrying every one of O(tags) and, when given, with the id O(cluster_id).
  - Returns each in the form M(scc.training.cs_cluster) returns it.
extends_documentation_fragment: [scc.training.alicloud, scc.training.alicloud.api, scc.training.alicloud.info_attributes]
options:
  name:
    description: Exact cluster name.
    type: str
  tags:
    description: Tags every listed cluster carries.
    type: dict
    default: {}
  cluster_id:
    description: Only this cluster.
    type: str
author: scc.training developers (!UNKNOWN)
"""

EXAMPLES = r"""
- name: The cluster that provision.yml made
  scc.training.cs_cluster_info:
    name: scc-ack
    tags: {managed-by: scc.training}
  register: found
"""

RETURN = r"""
clusters:
  description: The matching clusters, oldest first, as M(scc.training.cs_cluster) returns its O(scc.training.cs_cluster#module:name) cluster.
  returned: always
  type: list
  elements: dict
  sample: [{cluster_id: c82e6987e2961451182edacd74faf1234, name: scc-ack, state: running, vpc_id: vpc-1, vswitch_ids: [vsw-1]}]
"""

from ansible_collections.scc.training.plugins.module_utils._alicloud import (
    AlicloudApiError,
    AlicloudModule,
    cs_clusters,
)
from ansible_collections.scc.training.plugins.module_utils.ack import GONE, cluster_matches, cluster_view


def main():
    spec = dict(name=dict(type="str"), tags=dict(type="dict", default={}), cluster_id=dict(type="str"))
    module = AlicloudModule(spec)
    p = module.params
    try:
        found = cs_clusters(module.api, p["name"])
    except AlicloudApiError as exc:
        module.fail_api(exc)
    matches = [
        c
        for c in found
        if c.get("state") != GONE
        and cluster_matches(c, p["name"] if p["name"] is not None else c.get("name"), p["tags"])
        and p["cluster_id"] in (None, c.get("cluster_id"))
    ]
    matches.sort(key=lambda c: (c.get("created") or "", c.get("cluster_id") or ""))
    module.exit_json(changed=False, clusters=[cluster_view(c) for c in matches])


if __name__ == "__main__":
    main()
