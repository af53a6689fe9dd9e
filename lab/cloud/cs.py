"""CS 2015-12-15 (Container Service for Kubernetes, ACK) actions: managed clusters and their nodes.

The CS API is a ROA API: a method and a path, the query in the URL, a JSON body. Each action is a
route (method, path pattern) as aliyun-python-sdk-cs 4.8.1 declares it (aliyunsdkcs/request/
v20151215/<Action>Request.py: set_uri_pattern, set_method). Reply shapes follow the ACK API
reference pages (alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/developer-reference/
api-cs-2015-12-15-<action>): CreateCluster, DescribeClusterDetail, DescribeClustersV1,
DeleteCluster, AttachInstances, DescribeClusterNodes, DeleteClusterNodes.

The cluster state machine (DescribeClusterDetail ``state``): initial -> running after
``Timings.cluster``; DeleteCluster: deleting -> deleted after ``Timings.cluster_delete``, then the
cluster is gone (404 ErrorClusterNotFound). States as the API reference lists them (initial,
running, updating, failed, deleting, deleted). Attached nodes: pending -> running after
``Timings.node``; each is an emulator ECS instance, so a lab host backing that instance backs the node.
"""

from __future__ import annotations

import json
import re

from .errors import ApiError
from .store import Store, now_iso

VERSION = "2015-12-15"
PRODUCT = "CS"
CLUSTER_TYPES = ("ManagedKubernetes", "Kubernetes")


def host_id(region: str) -> str:
    return f"cs.{region}.aliyuncs.com" if region else "cs.aliyuncs.com"


# ---- errors -------------------------------------------------------------------------------------
# ErrorClusterNotFound (404): the code terraform-provider-alicloud treats as "cluster gone"
# (github.com/aliyun/terraform-provider-alicloud pull 6532, 7489; alicloud/service_alicloud_cs.go
# IsExpectedErrors(err, []string{"ErrorClusterNotFound"})) and Alibaba's own SDK test
# (alibabacloud-sdk-php: assertEquals('ErrorClusterNotFound', $e->getErrorCode()) for an unknown
# cluster id). The 404 status: UNCONFIRMED on an Alibaba page (a third-party ACK troubleshooting
# table lists ErrorClusterNotFound / 404, ErrorClusterState / 400, ErrorCheckAcl / 403). The message
# text is the emulator's.
def cluster_not_found(cluster_id: str) -> ApiError:
    return ApiError(404, "ErrorClusterNotFound", f"The specified cluster {cluster_id} not found.")


# ErrorClusterState (400): same third-party table; UNCONFIRMED on an Alibaba page.
def cluster_state(state: str) -> ApiError:
    return ApiError(400, "ErrorClusterState", f"The cluster is {state}; the operation needs a running cluster.")


# ACK answers a bad body field with 400 InvalidParameter (API reference "Error codes": the common
# code); the message naming the field is the emulator's.
def bad(field: str, why: str) -> ApiError:
    return ApiError(400, "InvalidParameter", f"{field}: {why}")


# ---- reply views --------------------------------------------------------------------------------
def _state(c: dict) -> str:
    return Store.status(c)


def cluster_out(s: Store, c: dict) -> dict:
    """A cluster as DescribeClusterDetail shows it (a subset of the documented fields)."""
    out = {k: v for k, v in c.items() if not k.startswith("_")}
    out["state"] = _state(c)
    out["tags"] = [{"key": k, "value": v} for k, v in c["_tags"].items()]
    out["size"] = len(c["_nodes"])
    return out


def node_out(s: Store, c: dict, node: dict) -> dict:
    inst = s.instances.get(node["instance_id"], {})
    return {
        "instance_id": node["instance_id"],
        "node_name": node["node_name"],
        "nodepool_id": node["nodepool_id"],
        "state": Store.status(node),
        "node_status": "Ready" if Store.status(node) == "running" else "Unknown",
        "instance_type": inst.get("InstanceType", ""),
        "instance_role": "Worker",
        "ip_address": [node["ip"]] if node["ip"] else [],
        "creation_time": node["creation_time"],
        "source": "AttachInstances",
    }


def _cluster(s: Store, ctx, cluster_id: str) -> dict:
    c = s.clusters.get(cluster_id)
    if c is None or c["_region"] != ctx.region:
        raise cluster_not_found(cluster_id)
    if _state(c) == "deleted":
        del s.clusters[cluster_id]
        raise cluster_not_found(cluster_id)
    return c


def _body_list(body: dict, field: str) -> list[str]:
    value = body.get(field)
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise bad(field, "it must be a JSON array of strings.")
    return value


def _int(query: dict, name: str, default: int, lo: int, hi: int) -> int:
    raw = query.get(name)
    if raw in (None, ""):
        return default
    if not str(raw).isdigit() or not lo <= int(raw) <= hi:
        raise bad(name, f"it must be an integer from {lo} to {hi}.")
    return int(raw)


# ---- clusters -----------------------------------------------------------------------------------
# CreateCluster "addons": "Network component: Required ... Flannel: [{"name":"flannel","config":""}], Terway:
# [{"name": "terway-eniip","config": ""}]"; container_cidr: "This parameter is required for Flannel clusters."
# (alibabacloud_cs20151215 7.2.3 CreateClusterRequest). The error code and text are the emulator's (UNCONFIRMED).
NETWORK_ADDONS = ("flannel", "terway-eniip")


def _network_addon(body: dict) -> str:
    addons = body.get("addons")
    if addons is None:
        addons = []
    if not isinstance(addons, list) or not all(isinstance(a, dict) and isinstance(a.get("name"), str) for a in addons):
        raise bad("addons", 'a JSON array of {"name": ..., "config": ...}.')
    network = [a["name"] for a in addons if a["name"] in NETWORK_ADDONS]
    if len(network) != 1:
        raise bad("addons", "exactly one network component is required: flannel or terway-eniip.")
    if network[0] == "flannel" and not body.get("container_cidr"):
        raise bad("container_cidr", "it is required for Flannel clusters.")
    return network[0]


def create_cluster(s: Store, ctx, path: dict, query: dict, body: dict) -> dict:
    # client_token (CreateClusterRequest "The client token."): the same token with the same body returns the first
    # create's reply; with another body it is refused (ECS's idempotence rule, applied here too: UNCONFIRMED for CS).
    token = body.get("client_token")
    if token:
        seen = s.cs_tokens.get(token)
        rest = json.dumps({k: v for k, v in body.items() if k != "client_token"}, sort_keys=True)
        if seen is not None:
            if seen[0] != rest:
                raise ApiError(400, "IdempotentParameterMismatch", "The specified client_token is used.")
            return dict(seen[1])
        reply = _create_cluster(s, ctx, body)
        s.cs_tokens[token] = (rest, dict(reply))
        return reply
    return _create_cluster(s, ctx, body)


def _create_cluster(s: Store, ctx, body: dict) -> dict:
    name = body.get("name")
    if not isinstance(name, str) or not re.fullmatch(
        r"[0-9A-Za-z\u4e00-\u9fa5_][0-9A-Za-z\u4e00-\u9fa5_-]{0,62}", name
    ):
        # CreateCluster: "The name must be 1 to 63 characters in length, and can contain digits,
        # letters, and hyphens (-). The name cannot start with a hyphen (-)."
        raise bad("name", "1 to 63 characters: digits, letters, underscores and hyphens, not starting with a hyphen.")
    ctype = body.get("cluster_type")
    if ctype not in CLUSTER_TYPES:
        raise bad("cluster_type", "valid values: " + ", ".join(CLUSTER_TYPES) + ".")
    # region_id: "This parameter is required." (alibabacloud_cs20151215 CreateClusterRequest).
    if body.get("region_id") != ctx.region:
        raise bad("region_id", "it is required and must be the region of the endpoint.")
    vpc = s.vpcs.get(body.get("vpcid") or "")
    if vpc is None or vpc["_region"] != ctx.region:
        raise bad("vpcid", "the VPC does not exist in the region.")
    vswitches = _body_list(body, "vswitch_ids")
    if not vswitches:
        raise bad("vswitch_ids", "at least one vSwitch is required.")
    for vsw_id in vswitches:
        vsw = s.vswitches.get(vsw_id)
        if vsw is None or vsw["VpcId"] != vpc["VpcId"]:
            raise bad("vswitch_ids", f"{vsw_id} is not a vSwitch of VPC {vpc['VpcId']}.")
    tags = body.get("tags") or []
    if not isinstance(tags, list) or not all(isinstance(t, dict) and t.get("key") for t in tags):
        raise bad("tags", 'a list of {"key": ..., "value": ...}.')
    network = _network_addon(body)
    cluster_id = "c" + s.new_id("", 32)
    nodepool_id = "np" + s.new_id("", 32)
    s.clusters[cluster_id] = {
        "cluster_id": cluster_id,
        "name": name,
        "cluster_type": ctype,
        "cluster_spec": body.get("cluster_spec") or "ack.pro.small",
        "profile": body.get("profile") or "Default",
        "region_id": ctx.region,
        "zone_id": s.vswitches[vswitches[0]]["ZoneId"],
        "vpc_id": vpc["VpcId"],
        # DescribeClusterDetail: "vswitch_id": the vSwitches, comma-separated.
        "vswitch_id": ",".join(vswitches),
        "vswitch_ids": list(vswitches),
        "current_version": body.get("kubernetes_version") or "1.32.1-aliyun.1",
        "init_version": body.get("kubernetes_version") or "1.32.1-aliyun.1",
        "network_mode": "vpc",
        "service_cidr": body.get("service_cidr") or "172.16.0.0/16",
        "container_cidr": body.get("container_cidr") or "",
        "_network": network,
        "deletion_protection": bool(body.get("deletion_protection", False)),
        "created": now_iso(seconds=True),
        "updated": now_iso(seconds=True),
        "_region": ctx.region,
        "_tags": {t["key"]: str(t.get("value", "")) for t in tags},
        "_timeline": s.timeline((0.0, "initial"), (s.timings.cluster, "running")),
        "_nodes": {},
        "_default_nodepool": nodepool_id,
    }
    return {"cluster_id": cluster_id, "request_id": "", "task_id": "T-" + s.new_id("", 24)}


def describe_cluster_detail(s: Store, ctx, path: dict, query: dict, body: dict) -> dict:
    return cluster_out(s, _cluster(s, ctx, path["ClusterId"]))


def _page(query: dict, items: list, params: tuple[str, str], keys: tuple[str, str]) -> dict:
    """One page of ``items``: ``params`` name the query's page number and size (each API spells them its way),
    ``keys`` the reply's list and its page information."""
    number = _int(query, params[0], 1, 1, 1 << 30)
    size = _int(query, params[1], 10, 1, 100)
    start = (number - 1) * size
    return {
        keys[0]: items[start : start + size],
        keys[1]: {"page_number": number, "page_size": size, "total_count": len(items)},
    }


def describe_clusters_v1(s: Store, ctx, path: dict, query: dict, body: dict) -> dict:
    name, ctype = query.get("name") or "", query.get("cluster_type") or ""
    found = []
    for cluster_id in list(s.clusters):
        c = s.clusters[cluster_id]
        if c["_region"] != ctx.region or _state(c) == "deleted":
            continue
        if name and name not in c["name"]:  # the API filters by name (a fuzzy match: UNCONFIRMED)
            continue
        if ctype and c["cluster_type"] != ctype:
            continue
        found.append(cluster_out(s, c))
    return _page(query, found, ("page_number", "page_size"), ("clusters", "page_info"))


def delete_cluster(s: Store, ctx, path: dict, query: dict, body: dict) -> dict:
    c = _cluster(s, ctx, path["ClusterId"])
    state = _state(c)
    if state != "deleting":
        c["_timeline"] = s.timeline((0.0, "deleting"), (s.timings.cluster_delete, "deleted"))
        c["updated"] = now_iso(seconds=True)
    # DeleteCluster answers 202 Accepted (API reference; the Go example of cluster-api-provider
    # checks http.StatusAccepted).
    return {"_status": 202, "cluster_id": c["cluster_id"], "request_id": "", "task_id": "T-" + s.new_id("", 24)}


# ---- nodes --------------------------------------------------------------------------------------
def attach_instances(s: Store, ctx, path: dict, query: dict, body: dict) -> dict:
    c = _cluster(s, ctx, path["ClusterId"])
    if _state(c) != "running":
        raise cluster_state(_state(c))
    instances = _body_list(body, "instances")
    if not instances:
        raise bad("instances", "at least one ECS instance id is required.")
    nodepool = body.get("nodepool_id") or c["_default_nodepool"]
    if nodepool != c["_default_nodepool"]:
        # The emulator keeps one node pool per cluster (the default one). UNCONFIRMED code.
        raise ApiError(404, "ErrorNodePoolNotFound", f"The node pool {nodepool} is not found.")
    if not body.get("password") and not body.get("key_pair") and not body.get("nodepool_id"):
        raise bad("password", "set key_pair or password (AttachInstances).")
    for instance_id in instances:
        inst = s.instances.get(instance_id)
        if inst is None or inst["_region"] != ctx.region:
            raise bad("instances", f"the ECS instance {instance_id} does not exist in the region.")
        if inst["VpcAttributes"]["VpcId"] != c["vpc_id"]:
            raise bad("instances", f"the ECS instance {instance_id} is not in the VPC of the cluster.")
        if Store.status(inst) != "Running":
            raise bad("instances", f"the ECS instance {instance_id} is not Running.")
        if instance_id in c["_nodes"] or any(instance_id in o["_nodes"] for o in s.clusters.values()):
            raise bad("instances", f"the ECS instance {instance_id} is already a node of a cluster.")
    listed = []
    for instance_id in instances:
        inst = s.instances[instance_id]
        ips = inst["VpcAttributes"]["PrivateIpAddress"]["IpAddress"]
        ip = ips[0] if ips else ""
        c["_nodes"][instance_id] = {
            "instance_id": instance_id,
            # ACK names a node <region>.<private IP> (DescribeClusterNodes example "cn-hangzhou.192.168.0.70").
            "node_name": f"{ctx.region}.{ip}" if ip else instance_id,
            "nodepool_id": nodepool,
            "ip": ip,
            "creation_time": now_iso(seconds=True),
            # DescribeClusterNodes "state": pending, running, starting, stopping, stopped (the model's list).
            "_timeline": s.timeline((0.0, "pending"), (s.timings.node, "running")),
        }
        listed.append({"code": "200", "instanceId": instance_id, "message": "successful"})
    return {"list": listed, "task_id": "T-" + s.new_id("", 24)}


def describe_cluster_nodes(s: Store, ctx, path: dict, query: dict, body: dict) -> dict:
    c = _cluster(s, ctx, path["ClusterId"])
    nodes = [
        node_out(s, c, n)
        for n in c["_nodes"].values()
        if not query.get("nodepool_id") or n["nodepool_id"] == query["nodepool_id"]
    ]
    return _page(query, nodes, ("pageNumber", "pageSize"), ("nodes", "page"))


def delete_cluster_nodes(s: Store, ctx, path: dict, query: dict, body: dict) -> dict:
    c = _cluster(s, ctx, path["ClusterId"])
    names = _body_list(body, "nodes")
    if not names:
        raise bad("nodes", "at least one node name is required.")
    by_name = {n["node_name"]: i for i, n in c["_nodes"].items()}
    for name in names:
        if name not in by_name:
            raise bad("nodes", f"{name} is not a node of the cluster.")
    if body.get("release_node"):
        raise bad("release_node", "the emulator never releases instances; set release_node false.")
    for name in names:
        del c["_nodes"][by_name[name]]
    return {"_status": 202, "cluster_id": c["cluster_id"], "request_id": "", "task_id": "T-" + s.new_id("", 24)}


# (method, path pattern, action, handler): the SDK's uri patterns with [Name] as a path parameter.
ROUTES = [
    ("POST", "/clusters", "CreateCluster", create_cluster),
    ("GET", "/clusters/[ClusterId]", "DescribeClusterDetail", describe_cluster_detail),
    ("DELETE", "/clusters/[ClusterId]", "DeleteCluster", delete_cluster),
    ("GET", "/api/v1/clusters", "DescribeClustersV1", describe_clusters_v1),
    ("POST", "/clusters/[ClusterId]/attach", "AttachInstances", attach_instances),
    ("GET", "/clusters/[ClusterId]/nodes", "DescribeClusterNodes", describe_cluster_nodes),
    ("POST", "/clusters/[ClusterId]/nodes", "DeleteClusterNodes", delete_cluster_nodes),
]
_COMPILED = [
    (
        method,
        re.compile("^" + re.sub(r"\\\[(\w+)\\\]", r"(?P<\1>[A-Za-z0-9_-]+)", re.escape(pattern)) + "$"),
        action,
        fn,
    )
    for method, pattern, action, fn in ROUTES
]


def route(method: str, path: str):
    """``(action, handler, path parameters)`` for a request, or None when no route matches."""
    for want, regex, action, fn in _COMPILED:
        match = regex.match(path)
        if match and want == method:
            return action, fn, match.groupdict()
    return None
