#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)

from __future__ import annotations

DOCUMENTATION = r"""
module: cs_cluster_nodes
short_description: Add existing ECS instances to an ACK cluster as nodes, or remove them
version_added: 0.2.0
description:
  - Makes the ECS instances O(instance_ids) nodes of the ACK cluster O(cluster_id) (or of its node
    pool O(nodepool_id)), or with O(state=absent) removes them (CS API 2015-12-15, a ROA API, with
    C(AttachInstances) C(POST /clusters/{ClusterId}/attach), C(DescribeClusterNodes)
    C(GET /clusters/{ClusterId}/nodes), C(DeleteClusterNodes) C(POST /clusters/{ClusterId}/nodes);
    paths and methods as aliyun-python-sdk-cs 4.8.1 declares them).
  - Only the instances that are not nodes yet are attached, and only those that are are removed;
    a second run changes nothing.
  - Before any change, the instances are read through the ECS API (C(DescribeInstances)); one that
    does not exist, or is not in the cluster's VPC, fails the task naming O(instance_ids).
  - Removing never releases the ECS instances (C(release_node=false)).
  - With O(wait), waits until the added nodes are C(running), or the removed ones are gone.
extends_documentation_fragment: [scc.training.alicloud, scc.training.alicloud.api, scc.training.alicloud.state, scc.training.alicloud.wait]
options:
  cluster_id:
    description: The ACK cluster.
    type: str
    required: true
  instance_ids:
    description: ECS instance ids (C(i-...)) that must be (or must no longer be) nodes of the cluster.
    type: list
    elements: str
    required: true
  nodepool_id:
    description: Add the instances to this node pool (its logon settings apply); default the cluster's default pool.
    type: str
  password:
    description: Logon password of the instances. O(password) or O(key_pair) is required to add nodes without O(nodepool_id).
    type: str
  key_pair:
    description: Key pair name, instead of O(password); not with O(nodepool_id).
    type: str
  format_disk:
    description: Store container data and images on the instances' data disk (formats it).
    type: bool
    default: false
  keep_instance_name:
    description: Keep the ECS instance names.
    type: bool
    default: true
  drain_node:
    description: Drain a node before it is removed.
    type: bool
    default: true
  wait_timeout:
    default: 900
author: scc.training developers (!UNKNOWN)
"""

EXAMPLES = r"""
- name: The SCC instances join the cluster
  scc.training.cs_cluster_nodes:
    cluster_id: "{{ ack.cluster.cluster_id }}"
    instance_ids: "{{ scc_instance_ids }}"
    password: "{{ vault_node_password }}"

- name: And leave it again (the instances are kept)
  scc.training.cs_cluster_nodes:
    cluster_id: "{{ ack.cluster.cluster_id }}"
    instance_ids: "{{ scc_instance_ids }}"
    state: absent
"""

RETURN = r"""
nodes:
  description: The nodes of O(instance_ids) as the cluster lists them (empty after O(state=absent)).
  returned: always
  type: list
  elements: dict
  contains:
    instance_id:
      description: ECS instance id.
      type: str
      sample: i-2ze74qyw9s3ge4k0****
    node_name:
      description: Kubernetes node name (C(<region>.<private IP>)).
      type: str
      sample: cn-shanghai.10.0.1.5
    nodepool_id:
      description: Node pool.
      type: str
      sample: np1234abcd
    state:
      description: C(initial), C(running), C(removing), ...
      type: str
      sample: running
    ip_address:
      description: Private addresses.
      type: list
      elements: str
      sample: [10.0.1.5]
added:
  description: Instance ids attached by this run (or that would be, in check mode).
  returned: always
  type: list
  elements: str
removed:
  description: Node names removed by this run (or that would be, in check mode).
  returned: always
  type: list
  elements: str
"""

from ansible_collections.scc.training.plugins.module_utils._alicloud import (
    INSTANCE,
    AlicloudApiError,
    AlicloudModule,
    cs_call,
    cs_cluster,
    cs_cluster_nodes,
    find_all,
    may_have_applied,
)
from ansible_collections.scc.training.plugins.module_utils.ack import (
    READY,
    node_plan,
    node_view,
    nodes_gone,
    nodes_ready,
    validate_nodes,
    vpc_problems,
)


def ours(nodes, wanted):
    return [node_view(n) for n in nodes if n.get("instance_id") in wanted]


def run(module):
    p = module.params
    api = module.api
    cluster = cs_cluster(api, p["cluster_id"])
    if cluster is None and p["state"] == "absent":
        return dict(changed=False, added=[], removed=[], nodes=[])
    if cluster is None:
        module.fail_json(msg="cluster_id: no ACK cluster %s in %s" % (p["cluster_id"], api.region))
    wanted = p["instance_ids"]
    if p["state"] == "present":
        instances = find_all(api, INSTANCE, ids=wanted)
        problems = vpc_problems(instances, wanted, cluster.get("vpc_id"))
        if problems:
            module.fail_json(msg="; ".join(problems))
    nodes = cs_cluster_nodes(api, p["cluster_id"])
    to_add, to_remove = node_plan(wanted, nodes, p["state"])
    result = dict(added=to_add, removed=to_remove)
    if not to_add and not to_remove:
        return dict(result, changed=False, nodes=ours(nodes, wanted) if p["state"] == "present" else [])
    if module.check_mode:
        return dict(result, changed=True, nodes=ours(nodes, wanted) if p["state"] == "present" else [])
    if to_add:
        if cluster.get("state") != READY:
            module.fail_json(
                msg="cluster_id: ACK cluster %s is %s, not running" % (p["cluster_id"], cluster.get("state"))
            )
        body = {
            "instances": to_add,
            "nodepool_id": p["nodepool_id"],
            "password": p["password"],
            "key_pair": p["key_pair"],
            "format_disk": p["format_disk"],
            "keep_instance_name": p["keep_instance_name"],
        }

        def made(error):
            # No ClientToken: after a lost reply, the instances already listed as nodes were attached.
            if (
                may_have_applied(error.http_status)
                and not node_plan(to_add, cs_cluster_nodes(api, p["cluster_id"]), "present")[0]
            ):
                return {"list": []}
            return None

        attach = {k: v for k, v in body.items() if v is not None}
        cs_call(api, "AttachInstances", body=attach, before_retry=made, ClusterId=p["cluster_id"])
        done = nodes_ready
    else:
        body = {"nodes": to_remove, "release_node": False, "drain_node": p["drain_node"]}
        try:
            cs_call(api, "DeleteClusterNodes", body=body, ClusterId=p["cluster_id"])
        except AlicloudApiError:
            # A retry after a lost reply: what is no longer listed was removed.
            if node_plan(wanted, cs_cluster_nodes(api, p["cluster_id"]), "absent")[1]:
                raise
        done = nodes_gone
    nodes = cs_cluster_nodes(api, p["cluster_id"])
    if p["wait"]:
        nodes = module.wait(
            lambda: cs_cluster_nodes(api, p["cluster_id"]),
            lambda listed: done(listed, wanted),
            "nodes %s of ACK cluster %s" % (", ".join(wanted), p["cluster_id"]),
        )
    return dict(result, changed=True, nodes=ours(nodes, wanted) if p["state"] == "present" else [])


def main():
    spec = dict(
        cluster_id=dict(type="str", required=True),
        instance_ids=dict(type="list", elements="str", required=True),
        nodepool_id=dict(type="str"),
        password=dict(type="str", no_log=True),
        key_pair=dict(type="str", no_log=False),
        format_disk=dict(type="bool", default=False),
        keep_instance_name=dict(type="bool", default=True),
        drain_node=dict(type="bool", default=True),
    )
    module = AlicloudModule.for_state(spec, wait_timeout=900, validate=validate_nodes)
    try:
        result = run(module)
    except AlicloudApiError as exc:
        module.fail_api(exc)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
