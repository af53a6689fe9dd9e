# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""What the ACK modules (cs_cluster, cs_cluster_nodes) decide, as pure functions.

The CS API 2015-12-15 request bodies and reply fields named here are those of the ACK API
reference (alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/developer-reference/
api-cs-2015-12-15-<action>, actions CreateCluster, DescribeClusterDetail, DescribeClustersV1,
AttachInstances, DescribeClusterNodes, DeleteClusterNodes) and of aliyun-python-sdk-cs 4.8.1
(aliyunsdkcs/request/v20151215/<Action>Request.py: paths and methods).
"""

from __future__ import annotations

import ipaddress
import re

# DescribeClusterDetail "state" (alibabacloud_cs20151215 7.2.3 DescribeClusterDetailResponseBody, "Valid values"):
# initial, failed, running, updating, upgrading, removing, draining, scaling, inactive, unavailable, deleting,
# deleted, delete_failed, waiting, disconnected. The failures: "failed" (creation failed) and "delete_failed"
# (this list said "deleted_failed" and "updating_failed", names the API does not use: a wait ran to its timeout).
READY = "running"
GONE = "deleted"
FAILED = ("failed", "delete_failed")
CLUSTER_TYPES = ("ManagedKubernetes",)
# CreateCluster "name": 1 to 63 characters, digits, letters and hyphens, not starting with a hyphen.
NAME = re.compile(r"^[0-9A-Za-z_][0-9A-Za-z_-]{0,62}\Z")
INSTANCE_ID = re.compile(r"^i-[0-9a-z]{2,}\Z")
CLUSTER_ID = re.compile(r"^c[0-9a-z]+\Z")
VPC_ID = re.compile(r"^vpc-[0-9a-z]+\Z")
VSWITCH_ID = re.compile(r"^vsw-[0-9a-z]+\Z")

# CreateCluster "addons" (alibabacloud_cs20151215 7.2.3 CreateClusterRequest): "Network component: Required. Two
# network types are available: Flannel and Terway ... Flannel: [{"name":"flannel","config":""}], Terway:
# [{"name": "terway-eniip","config": ""}]". container_cidr: "This parameter is required for Flannel clusters."
# pod_vswitch_ids (Terway's pod vSwitches) is marked [Deprecated] there with no replacement named: it is not sent.
NETWORK_PLUGINS = ("flannel", "terway-eniip")
# container_cidr: "10.0.0.0/8, 172.16-31.0.0/12-16, and 192.168.0.0/16" and their subnets; service_cidr:
# "10.0.0.0/16-24, 172.16-31.0.0/16-24, and 192.168.0.0/16-24" (the same model's field comments). A pod block
# inside one of the three ranges has a prefix that range allows, so the pod block is judged by its range alone.
_PRIVATE = tuple(ipaddress.ip_network(n) for n in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"))
SERVICE_PREFIXES = range(16, 25)


def tags_from_cs(tags):
    """CS tags ``[{"key": k, "value": v}]`` -> ``{k: v}``."""
    return {t.get("key"): t.get("value", "") for t in (tags or []) if isinstance(t, dict) and t.get("key")}


def tags_to_cs(tags):
    """``{k: v}`` -> CS tags, sorted by key (a stable body)."""
    return [{"key": k, "value": str(v)} for k, v in sorted((tags or {}).items())]


def cluster_matches(cluster, name, tags):
    """True when ``cluster`` is named exactly ``name`` and carries every one of ``tags``."""
    have = tags_from_cs(cluster.get("tags"))
    return cluster.get("name") == name and all(have.get(k) == str(v) for k, v in (tags or {}).items())


def vswitch_ids_of(cluster):
    """The cluster's vSwitches: DescribeClusterDetail gives ``vswitch_id`` comma-separated."""
    if cluster.get("vswitch_ids"):
        return list(cluster["vswitch_ids"])
    return [v for v in (cluster.get("vswitch_id") or "").split(",") if v]


def cluster_view(cluster):
    """What cs_cluster returns for a DescribeClusterDetail reply (or a predicted one); {} for none."""
    if not cluster:
        return {}
    return dict(
        cluster_id=cluster.get("cluster_id"),
        name=cluster.get("name"),
        state=cluster.get("state"),
        cluster_type=cluster.get("cluster_type"),
        cluster_spec=cluster.get("cluster_spec"),
        region_id=cluster.get("region_id"),
        vpc_id=cluster.get("vpc_id") or cluster.get("vpcid"),
        vswitch_ids=vswitch_ids_of(cluster),
        kubernetes_version=cluster.get("current_version") or cluster.get("kubernetes_version"),
        tags=tags_from_cs(cluster.get("tags")),
    )


def cluster_body(params, region):
    """The CreateCluster JSON body of an ACK managed cluster from cs_cluster's options."""
    body = {
        "name": params["name"],
        "region_id": region,
        "cluster_type": "ManagedKubernetes",
        "cluster_spec": params["cluster_spec"],
        "vpcid": params["vpc_id"],
        "vswitch_ids": list(params["vswitch_ids"] or []),
        "service_cidr": params["service_cidr"],
        "container_cidr": params.get("pod_cidr") if (params.get("network_plugin") or "flannel") == "flannel" else None,
        "addons": addons(params),
        "snat_entry": params["snat_entry"],
        "endpoint_public_access": params["endpoint_public_access"],
        "deletion_protection": params["deletion_protection"],
        "kubernetes_version": params.get("kubernetes_version"),
        "tags": tags_to_cs(params["tags"]),
    }
    return {k: v for k, v in body.items() if v is not None}


def addons(params):
    """CreateCluster's ``addons``: the network add-on of ``network_plugin`` first, then the user's ``addons``."""
    listed = [{"name": params.get("network_plugin") or "flannel", "config": ""}]
    for addon in params.get("addons") or []:
        listed.append({k: addon[k] for k in ("name", "config", "version", "disabled") if addon.get(k) is not None})
    return listed


def _cidr_problems(option, value, ranges, prefixes=None):
    """Why ``value`` is not a network inside one of ``ranges`` (with a prefix length in ``prefixes`` when given), or
    None."""
    network = _network(value)
    if network is None or network.version != 4:
        return "%s (%r) must be an IPv4 network in CIDR form, e.g. 172.20.0.0/16" % (option, value)
    if not any(network.subnet_of(r) for r in ranges):
        return "%s (%s) must lie in 10.0.0.0/8, 172.16.0.0/12 or 192.168.0.0/16 (CreateCluster)" % (option, network)
    if prefixes is not None and network.prefixlen not in prefixes:
        return "%s (%s) must have a prefix length from /%d to /%d (CreateCluster)" % (
            option,
            network,
            min(prefixes),
            max(prefixes),
        )
    return None


def network_problems(params, pod_option="pod_cidr", service_option="service_cidr", plugin_option="network_plugin"):
    """The cluster network's problems, each naming its option (the module's or provision.yml's names)."""
    plugin = params.get(plugin_option) or "flannel"
    if plugin not in NETWORK_PLUGINS:
        return ["%s (%r) must be one of %s" % (plugin_option, plugin, ", ".join(NETWORK_PLUGINS))]
    problems = []
    service_cidr = params.get(service_option)
    service_problem = _cidr_problems(service_option, service_cidr, _PRIVATE, SERVICE_PREFIXES)
    if service_problem:
        problems.append(service_problem)
    if plugin != "flannel":
        return problems
    pod_cidr = params.get(pod_option)
    if not pod_cidr:
        return problems + [
            "%s is required with %s=flannel (CreateCluster container_cidr)" % (pod_option, plugin_option)
        ]
    problem = _cidr_problems(pod_option, pod_cidr, _PRIVATE)
    if problem:
        problems.append(problem)
    elif not service_problem and _network(pod_cidr).overlaps(_network(service_cidr)):
        problems.append("%s (%s) overlaps %s (%s)" % (pod_option, _network(pod_cidr), service_option, service_cidr))
    return problems


def validate_cluster(params):
    """cs_cluster's input problems, each naming its option."""
    errors = []
    if not NAME.match(params.get("name") or ""):
        errors.append(
            "name must be 1 to 63 characters (digits, letters, underscores, hyphens) and not start with a hyphen"
        )
    if params.get("state") == "absent":
        if not params.get("tags") and not params.get("cluster_id"):
            errors.append("state=absent needs tags or cluster_id: a name alone may match a cluster someone else made")
        return errors
    if not VPC_ID.match(params.get("vpc_id") or ""):
        errors.append("vpc_id is required with state=present (vpc-...)")
    vswitches = params.get("vswitch_ids") or []
    if not vswitches:
        errors.append("vswitch_ids is required with state=present (one or more vsw-...)")
    errors.extend("vswitch_ids: %r is not a vSwitch id (vsw-...)" % v for v in vswitches if not VSWITCH_ID.match(v))
    errors.extend(network_problems(params))
    for index, addon in enumerate(params.get("addons") or []):
        name = addon.get("name") if isinstance(addon, dict) else None
        if not name:
            errors.append("addons[%d] needs a name" % index)
        elif name in NETWORK_PLUGINS or name.startswith("terway"):
            errors.append("addons[%d] (%s): the network add-on comes from network_plugin" % (index, name))
    return errors


def validate_nodes(params):
    """cs_cluster_nodes' input problems, each naming its option."""
    errors = []
    if not CLUSTER_ID.match(params.get("cluster_id") or ""):
        errors.append(
            "cluster_id %r is not an ACK cluster id (c followed by letters and digits)" % params.get("cluster_id")
        )
    ids = params.get("instance_ids") or []
    if not ids:
        errors.append("instance_ids must list at least one ECS instance id (i-...)")
    errors.extend("instance_ids: %r is not an ECS instance id (i-...)" % i for i in ids if not INSTANCE_ID.match(i))
    if len(set(ids)) != len(ids):
        errors.append("instance_ids lists an instance twice")
    if params.get("state") == "present":
        if not params.get("nodepool_id") and not params.get("password") and not params.get("key_pair"):
            # AttachInstances: "You must set key_pair or password"; key_pair "is not supported
            # after you specify nodepool_id" (the node pool's login settings apply).
            errors.append("password or key_pair is required to add nodes without nodepool_id")
        if params.get("nodepool_id") and params.get("key_pair"):
            errors.append("key_pair cannot be used with nodepool_id (AttachInstances: the node pool's logon applies)")
    return errors


def vpc_problems(instances, wanted, cluster_vpc):
    """Why ``wanted`` instance ids cannot join a cluster in ``cluster_vpc``, given the ECS
    ``instances`` (DescribeInstances items) that were found: each message names instance_ids."""
    found = {i.get("InstanceId"): i for i in instances}
    problems = []
    for instance_id in wanted:
        inst = found.get(instance_id)
        if inst is None:
            problems.append("instance_ids: %s is not an ECS instance of this region" % instance_id)
            continue
        vpc = (inst.get("VpcAttributes") or {}).get("VpcId")
        if vpc != cluster_vpc:
            problems.append(
                "instance_ids: %s is in VPC %s, not in the cluster's VPC %s; an ECS instance joins only a cluster"
                " of its own VPC" % (instance_id, vpc or "(none)", cluster_vpc)
            )
    return problems


def node_plan(wanted, nodes, state):
    """``(to_add, to_remove)``: instance ids to attach (state present) or node names to remove
    (state absent), from the ``wanted`` instance ids and the cluster's ``nodes`` (DescribeClusterNodes)."""
    present = {n.get("instance_id"): n for n in nodes}
    if state == "present":
        return [i for i in wanted if i not in present], []
    return [], [present[i]["node_name"] for i in wanted if i in present]


def node_view(node):
    return dict(
        instance_id=node.get("instance_id"),
        node_name=node.get("node_name"),
        nodepool_id=node.get("nodepool_id"),
        state=node.get("state"),
        ip_address=list(node.get("ip_address") or []),
    )


def nodes_ready(nodes, wanted):
    """True when every ``wanted`` instance is a node in state running."""
    states = {n.get("instance_id"): n.get("state") for n in nodes}
    return all(states.get(i) == READY for i in wanted)


def nodes_gone(nodes, wanted):
    listed = {n.get("instance_id") for n in nodes}
    return not any(i in listed for i in wanted)


def _network(value):
    try:
        return ipaddress.ip_network(str(value), strict=True)
    except ValueError:
        return None


def ack_input_problems(settings):
    """provision.yml's ``scc_cloud_ack_*`` variables -> one sentence per problem, naming the variable
    (empty when all is well). Nothing is checked while ``scc_cloud_ack_enabled`` is false."""
    enabled = settings.get("scc_cloud_ack_enabled")
    if isinstance(enabled, str) and enabled.lower() in ("true", "false"):  # -e scc_cloud_ack_enabled=true
        enabled = enabled.lower() == "true"
    if not isinstance(enabled, bool):
        return ["scc_cloud_ack_enabled (%r) must be true or false." % (enabled,)]
    if not enabled:
        return []
    problems = []
    # scc_cloud_ack_cluster_spec's choices are roles/scc_cloud's argument spec's: not judged again here.
    version = settings.get("scc_cloud_ack_kubernetes_version") or ""
    if version and not re.match(r"^1\.\d+\.\d+-aliyun\.\d+\Z", str(version)):
        problems.append(
            "scc_cloud_ack_kubernetes_version (%r) must look like 1.32.1-aliyun.1, or be empty for the API's default."
            % (version,)
        )
    network = network_problems(
        dict(settings, scc_cloud_ack_network_plugin=settings.get("scc_cloud_ack_network_plugin") or "flannel"),
        pod_option="scc_cloud_ack_pod_cidr",
        service_option="scc_cloud_ack_service_cidr",
        plugin_option="scc_cloud_ack_network_plugin",
    )
    problems.extend(network)
    vpc = _network(settings.get("scc_cloud_vpc_cidr"))
    for option in ("scc_cloud_ack_service_cidr", "scc_cloud_ack_pod_cidr"):
        block = _network(settings.get(option))
        if vpc is None or block is None or any(option in problem for problem in network):
            continue
        if option == "scc_cloud_ack_pod_cidr" and settings.get("scc_cloud_ack_network_plugin") == "terway-eniip":
            continue  # Terway gives pods addresses of the VPC: no pod CIDR is sent
        if block.version == vpc.version and block.overlaps(vpc):
            # CreateCluster service_cidr and container_cidr: "cannot overlap with the CIDR block(s) used by the VPC".
            problems.append("%s (%s) overlaps scc_cloud_vpc_cidr (%s)." % (option, block, vpc))
    if not settings.get("scc_cloud_ack_node_password") and not settings.get("scc_cloud_key_pair_name"):
        problems.append(
            "scc_cloud_ack_node_password (or scc_cloud_key_pair_name) must be set: AttachInstances needs the nodes'"
            " logon password or key pair."
        )
    return problems
