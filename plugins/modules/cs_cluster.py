#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)

from __future__ import annotations

DOCUMENTATION = r"""
module: cs_cluster
short_description: Create or delete an ACK managed Kubernetes cluster, found by name and tags
version_added: 0.2.0
description:
  - Keeps one Container Service for Kubernetes (ACK) managed cluster named O(name) that carries
    O(tags) (CS API 2015-12-15, a ROA API, with C(CreateCluster) C(POST /clusters), C(DescribeClustersV1)
    C(GET /api/v1/clusters), C(DescribeClusterDetail) C(GET /clusters/{ClusterId}), C(DeleteCluster)
    C(DELETE /clusters/{ClusterId}); paths and methods as aliyun-python-sdk-cs 4.8.1 declares them).
  - With O(wait), waits until the cluster is C(running) (after a create, about ten minutes in real
    life), or after a delete until it is gone; O(wait_timeout) bounds either wait.
  - A cluster's VPC cannot change; a different O(vpc_id) for an existing cluster fails.
  - O(state=absent) needs O(tags) or O(cluster_id), as a name alone may match a cluster someone else made.
  - Two clusters of that name and tags fail the task rather than guessing.
  - CreateCluster carries a C(client_token) derived from the request (the same request gives the same token, so the
    API returns the first create's cluster), and a create retried after a lost reply first looks for the cluster by
    name and tags, so a retry never makes a second one.
  - The network add-on the API requires (CreateCluster C(addons), "Network component - Required" with Flannel or
    Terway in alibabacloud_cs20151215 7.2.3) comes from O(network_plugin). The API installs what O(addons) names at
    creation; the training path's own components (the ACK eRDMA Controller, an MPI operator, Arena) are installed
    afterwards, as docs/cloud.md says.
extends_documentation_fragment: [scc.training.alicloud, scc.training.alicloud.api, scc.training.alicloud.state, scc.training.alicloud.wait]
options:
  name:
    description: Cluster name (1 to 63 characters; digits, letters, underscores, hyphens; not starting with a hyphen).
    type: str
    required: true
  tags:
    description: Tags, set at creation; with O(name) they identify the cluster.
    type: dict
    default: {}
  cluster_id:
    description: With O(state=absent), delete the cluster only if it is this one.
    type: str
  vpc_id:
    description: VPC of the cluster (C(vpc-...)). Required with O(state=present).
    type: str
  vswitch_ids:
    description: VSwitches of the control plane and nodes (C(vsw-...)), in O(vpc_id). Required with O(state=present).
    type: list
    elements: str
  cluster_spec:
    description: C(ack.pro.small) (ACK Pro) or C(ack.standard) (ACK Basic).
    type: str
    choices: [ack.pro.small, ack.standard]
    default: ack.pro.small
  kubernetes_version:
    description: Kubernetes version (for example C(1.32.1-aliyun.1)); the API's default when omitted.
    type: str
  service_cidr:
    description:
      - Service CIDR block; inside 10.0.0.0/8, 172.16.0.0/12 or 192.168.0.0/16 with a prefix of /16 to /24
        (CreateCluster); must not overlap the VPC or O(pod_cidr).
    type: str
    default: 172.21.0.0/20
  network_plugin:
    description:
      - The cluster's network add-on. V(flannel) gives pods addresses from O(pod_cidr); V(terway-eniip) gives
        them addresses of the VPC's vSwitches (the pod vSwitch parameter is marked deprecated in the API model
        and is not sent; which vSwitches Terway then uses is UNCONFIRMED).
    type: str
    choices: [flannel, terway-eniip]
    default: flannel
  pod_cidr:
    description:
      - Pod CIDR block (C(container_cidr) in the API), required with O(network_plugin=flannel), ignored with
        Terway. Inside 10.0.0.0/8, 172.16.0.0/12 or 192.168.0.0/16; it must not overlap the VPC or
        O(service_cidr).
    type: str
  addons:
    description:
      - More components to install at creation (CreateCluster C(addons)), after the network add-on, for example
        two entries named V(csi-plugin) and V(csi-provisioner). Each entry has C(name) and optionally C(config),
        C(version) and C(disabled), as the API's C(Addon). The network add-on itself is refused here.
    type: list
    elements: dict
    default: []
  snat_entry:
    description: Create a NAT gateway SNAT entry for the VPC.
    type: bool
    default: false
  endpoint_public_access:
    description: Expose the API server on an EIP.
    type: bool
    default: false
  deletion_protection:
    description: Refuse deletion from the console or the API.
    type: bool
    default: false
  wait_timeout:
    default: 1800
author: scc.training developers (!UNKNOWN)
"""

EXAMPLES = r"""
- name: An ACK managed cluster in the training VPC, waiting until it is running
  scc.training.cs_cluster:
    name: scc-ack
    vpc_id: "{{ vpc.vpc.vpc_id }}"
    vswitch_ids: ["{{ vswitch.vswitch.vswitch_id }}"]
    network_plugin: flannel
    pod_cidr: 172.20.0.0/16
    tags: {managed-by: scc.training}
  register: ack

- name: Delete it (by name and tags, never by name alone)
  scc.training.cs_cluster:
    name: scc-ack
    tags: {managed-by: scc.training}
    state: absent
"""

RETURN = r"""
cluster:
  description: The cluster (empty after O(state=absent)); in check mode, as it would be created.
  returned: always
  type: dict
  contains:
    cluster_id:
      description: Cluster id (absent when only predicted in check mode).
      type: str
      sample: c82e6987e2961451182edacd74faf1234
    name:
      description: Name.
      type: str
      sample: scc-ack
    state:
      description: C(initial), C(running), C(deleting), ... (DescribeClusterDetail C(state)).
      type: str
      sample: running
    cluster_type:
      description: C(ManagedKubernetes).
      type: str
      sample: ManagedKubernetes
    cluster_spec:
      description: C(ack.pro.small) or C(ack.standard).
      type: str
      sample: ack.pro.small
    region_id:
      description: Region.
      type: str
      sample: cn-shanghai
    vpc_id:
      description: VPC.
      type: str
      sample: vpc-2zeg8nf1ukc0fcmvq****
    vswitch_ids:
      description: VSwitches.
      type: list
      elements: str
      sample: [vsw-2zete8s4qocqg0mf6****]
    kubernetes_version:
      description: Current Kubernetes version.
      type: str
      sample: 1.32.1-aliyun.1
    tags:
      description: Tags.
      type: dict
      sample: {managed-by: scc.training}
"""

from ansible_collections.scc.training.plugins.module_utils._alicloud import (
    CS_CLUSTER_GONE,
    TOKEN_GENERATIONS,
    AlicloudApiError,
    AlicloudModule,
    client_token,
    cs_call,
    cs_cluster,
    cs_clusters,
    may_have_applied,
)
from ansible_collections.scc.training.plugins.module_utils.ack import (
    FAILED,
    GONE,
    READY,
    cluster_body,
    cluster_matches,
    cluster_view,
    validate_cluster,
)


def find(module):
    """The one cluster of this name and tags (and id, when given), or None."""
    p = module.params
    matches = [c for c in cs_clusters(module.api, p["name"]) if cluster_matches(c, p["name"], p["tags"])]
    matches = [c for c in matches if c.get("state") != GONE]
    if p["cluster_id"]:
        matches = [c for c in matches if c.get("cluster_id") == p["cluster_id"]]
    if len(matches) > 1:
        module.fail_json(
            msg="name: %d ACK clusters are named %s with these tags (%s); this module will not guess"
            % (len(matches), p["name"], ", ".join(c.get("cluster_id") for c in matches)),
            matches=[c.get("cluster_id") for c in matches],
        )
    return matches[0] if matches else None


def wait_running(module, cluster_id):
    found = module.wait(
        lambda: cs_cluster(module.api, cluster_id),
        lambda c: c is None or c.get("state") == READY or c.get("state") in FAILED,
        "ACK cluster %s (waiting for running)" % cluster_id,
    )
    if not found or found.get("state") != READY:
        module.fail_json(
            msg="ACK cluster %s is %s, not running" % (cluster_id, (found or {}).get("state", "gone")),
            cluster=cluster_view(found),
        )
    return found


def present(module):
    p = module.params
    found = find(module)
    if found:
        if found.get("vpc_id") != p["vpc_id"]:
            module.fail_json(
                msg="vpc_id: ACK cluster %s is in %s, not %s; a cluster's VPC cannot change"
                % (found["cluster_id"], found.get("vpc_id"), p["vpc_id"])
            )
        if found.get("state") == "deleting":
            module.fail_json(
                msg="name: ACK cluster %s of this name and tags is being deleted; run again once it is gone"
                % found["cluster_id"],
                cluster=cluster_view(found),
            )
        if found.get("state") in FAILED:
            module.fail_json(
                msg="ACK cluster %s is %s" % (found["cluster_id"], found["state"]), cluster=cluster_view(found)
            )
        if found.get("state") != READY and p["wait"] and not module.check_mode:
            return False, found, wait_running(module, found["cluster_id"])
        return False, found, found
    body = cluster_body(p, module.api.region)
    if module.check_mode:
        return True, None, dict(body, state=None)

    def made(error):
        # Belt and braces beside the token: a failed attempt that may have created the cluster is looked up first.
        if not may_have_applied(error.http_status):
            return None
        again = find(module)
        return {"cluster_id": again["cluster_id"]} if again else None

    def alive(cluster_id):
        found = cs_cluster(module.api, cluster_id)
        return found is not None and found.get("state") not in (GONE, "deleting")

    # A token keeps naming what it made, even once that was deleted (a teardown, then the same provision again):
    # then the next generation of token, as AlicloudApi.create does for the RPC APIs.
    for generation in range(TOKEN_GENERATIONS):
        token = client_token("CreateCluster", body, generation)
        reply = cs_call(module.api, "CreateCluster", body=dict(body, client_token=token), before_retry=made)
        cluster_id = reply["cluster_id"]
        if module.api.wait_listed(cluster_id, alive):
            break
    else:
        module.fail_json(msg="CreateCluster: every derived client_token names a deleted cluster (last %s)" % cluster_id)
    if p["wait"]:
        return True, None, wait_running(module, cluster_id)
    return True, None, cs_cluster(module.api, cluster_id) or dict(body, cluster_id=cluster_id, state="initial")


def absent(module):
    found = find(module)
    if not found:
        return False, None, None
    if module.check_mode:
        return True, found, None
    cluster_id = found["cluster_id"]
    if found.get("state") != "deleting":
        try:
            cs_call(module.api, "DeleteCluster", ClusterId=cluster_id)
        except AlicloudApiError as exc:
            if exc.code != CS_CLUSTER_GONE:
                raise
    if module.params["wait"]:
        module.wait(
            lambda: cs_cluster(module.api, cluster_id),
            lambda c: c is None,
            "ACK cluster %s (waiting for deletion)" % cluster_id,
        )
    return True, found, None


def main():
    spec = dict(
        name=dict(type="str", required=True),
        tags=dict(type="dict", default={}),
        cluster_id=dict(type="str"),
        vpc_id=dict(type="str"),
        vswitch_ids=dict(type="list", elements="str"),
        cluster_spec=dict(type="str", default="ack.pro.small", choices=["ack.pro.small", "ack.standard"]),
        kubernetes_version=dict(type="str"),
        service_cidr=dict(type="str", default="172.21.0.0/20"),
        network_plugin=dict(type="str", default="flannel", choices=["flannel", "terway-eniip"]),
        pod_cidr=dict(type="str"),
        addons=dict(type="list", elements="dict", default=[]),
        snat_entry=dict(type="bool", default=False),
        endpoint_public_access=dict(type="bool", default=False),
        deletion_protection=dict(type="bool", default=False),
    )
    module = AlicloudModule.for_state(spec, wait_timeout=1800, validate=validate_cluster)
    module.run_state(present, absent, cluster_view, "cluster")


if __name__ == "__main__":
    main()
