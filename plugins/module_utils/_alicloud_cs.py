# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""The ACK API (Container Service for Kubernetes, CS 2015-12-15, ROA) over ``AlicloudApi.call_roa``:
routes, the call by action name, and the cluster and node listings.

Note that this module util is **PRIVATE** to the collection. It can change without notice.
Do not use it from other collections.
"""

from __future__ import annotations

import re
from urllib.parse import quote

from ansible_collections.scc.training.plugins.module_utils._alicloud_errors import AlicloudApiError

CS_CLUSTER_GONE = "ErrorClusterNotFound"
# action -> (method, uri pattern); tests/unit/plugins/module_utils/test_ack.py checks each against
# the SDK's own request class.
CS_ROUTES = {
    "CreateCluster": ("POST", "/clusters"),
    "DescribeClustersV1": ("GET", "/api/v1/clusters"),
    "DescribeClusterDetail": ("GET", "/clusters/[ClusterId]"),
    "DeleteCluster": ("DELETE", "/clusters/[ClusterId]"),
    "AttachInstances": ("POST", "/clusters/[ClusterId]/attach"),
    "DescribeClusterNodes": ("GET", "/clusters/[ClusterId]/nodes"),
    "DeleteClusterNodes": ("POST", "/clusters/[ClusterId]/nodes"),
}


def cs_path(action, **path_params):
    """``(method, path)`` of a CS action, its ``[Name]`` path parameters filled in (percent-encoded)."""
    method, pattern = CS_ROUTES[action]
    path = re.sub(r"\[(\w+)\]", lambda m: quote(str(path_params[m.group(1)]), safe=""), pattern)
    return method, path


def cs_call(api, action, query=None, body=None, before_retry=None, **path_params):
    """``api.call_roa`` of a CS ``action`` by name (CS_ROUTES)."""
    method, path = cs_path(action, **path_params)
    return api.call_roa(action, method, path, query, body, before_retry)


def _every_page(api, action, query, items, page_info, paging, **path):
    """Every item of a paged CS list: ``paging`` (size key, size, number key) names the query's paging, ``items``
    the reply's list and ``page_info`` its object holding ``total_count`` (the CS APIs do not spell them alike)."""
    size_key, size, number_key = paging
    found, page = [], 1
    while True:
        reply = cs_call(api, action, {**query, size_key: size, number_key: page}, **path)
        batch = reply.get(items) or []
        found.extend(batch)
        total = int((reply.get(page_info) or {}).get("total_count") or 0)
        if not batch or len(found) >= total:
            return found
        page += 1


def cs_clusters(api, name=None):
    """Every ACK cluster of the region (DescribeClustersV1, GET /api/v1/clusters), every page;
    ``name`` is passed as the API's name filter (the caller still matches it exactly)."""
    paging = ("page_size", 50, "page_number")
    return _every_page(api, "DescribeClustersV1", {"name": name}, "clusters", "page_info", paging)


def cs_cluster(api, cluster_id):
    """DescribeClusterDetail (GET /clusters/[ClusterId]); None once the cluster is gone or deleted."""
    try:
        detail = cs_call(api, "DescribeClusterDetail", ClusterId=cluster_id)
    except AlicloudApiError as exc:
        if exc.code == CS_CLUSTER_GONE:
            return None
        raise
    return None if detail.get("state") == "deleted" else detail


def cs_cluster_nodes(api, cluster_id, nodepool_id=None):
    """The nodes of a cluster (DescribeClusterNodes, GET /clusters/[ClusterId]/nodes), every page."""
    paging = ("pageSize", 100, "pageNumber")
    query = {"nodepool_id": nodepool_id}
    return _every_page(api, "DescribeClusterNodes", query, "nodes", "page", paging, ClusterId=cluster_id)
