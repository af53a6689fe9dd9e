# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""``cluster_health`` (the cluster_health role): a thin wrapper over plugins/module_utils/health.py.
Its documentation lives in the sidecar ``cluster_health.yml``."""

from __future__ import annotations

from collections.abc import Mapping

from ansible.errors import AnsibleFilterError

from ansible_collections.scc.training.plugins.plugin_utils.filter_errors import filter_call, lazy_module_utils

health = lazy_module_utils("health")


def cluster_health(nodes, hostvars, gates, reached):
    """The cluster's nodes, hostvars, the gate names and the nodes still in the play -> the verdict.

    Each node's report of gate G is its fact ``G_report``; a node without it was not judged by G."""
    if not isinstance(hostvars, Mapping):
        raise AnsibleFilterError("cluster_health: hostvars must be a mapping, got %s" % type(hostvars).__name__)
    if isinstance(gates, (str, Mapping)) or not hasattr(gates, "__iter__"):
        raise AnsibleFilterError("cluster_health: gates must be a list of role names")
    nodes = list(nodes)
    reports = {}
    for node in nodes:
        facts = hostvars.get(node) or {}
        reports[node] = {gate: facts.get("%s_report" % gate) for gate in gates}
    return filter_call("cluster_health", health.judge, nodes, reports, reached)


class FilterModule:
    """scc.training cluster health filter."""

    def filters(self):
        return {"cluster_health": cluster_health}
