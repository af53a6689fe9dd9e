# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""Cluster-stage filters for scc.training: thin wrappers over plugins/module_utils/cluster.py.

``cluster_addresses`` (the address rule of hosts_file, ssh_trust and mpi_hostfile),
``cluster_hosts_block``, ``cluster_known_hosts`` and ``cluster_authorized_key``.
Their documentation lives in the sidecar ``<filter name>.yml`` files.
"""

from __future__ import annotations

from collections.abc import Mapping

from ansible.errors import AnsibleFilterError

from ansible_collections.scc.training.plugins.module_utils import cluster


def _host_list(hosts, name):
    if isinstance(hosts, (str, bytes, Mapping)) or not hasattr(hosts, "__iter__"):
        raise AnsibleFilterError(
            "%s: input must be a list of inventory host names, got %s" % (name, type(hosts).__name__)
        )
    return [str(h) for h in hosts]


def _nodes(nodes, name):
    if isinstance(nodes, (str, bytes, Mapping)) or not hasattr(nodes, "__iter__"):
        raise AnsibleFilterError(
            "%s: input must be the node list scc.training.cluster_addresses returns, got %s"
            % (name, type(nodes).__name__)
        )
    return list(nodes)


def cluster_addresses(hosts, hostvars, interface=""):
    """Inventory hosts -> ``[{host, address, names, peer_names}]`` (address null when the rule finds none)."""
    hosts = _host_list(hosts, "cluster_addresses")
    if not isinstance(hostvars, Mapping):
        raise AnsibleFilterError(
            "cluster_addresses: hostvars must be the hostvars mapping, got %s" % type(hostvars).__name__
        )
    if not isinstance(interface, str):
        raise AnsibleFilterError("cluster_addresses: interface must be a string, got %s" % type(interface).__name__)
    missing = [h for h in hosts if h not in hostvars]
    if missing:
        raise AnsibleFilterError("cluster_addresses: not in the inventory: %s" % ", ".join(missing))
    return cluster.cluster_nodes(hosts, hostvars, interface.strip())


def cluster_hosts_block(nodes):
    """Nodes -> the /etc/hosts block (``address name [short]`` lines)."""
    try:
        return cluster.hosts_block(_nodes(nodes, "cluster_hosts_block"))
    except ValueError as exc:
        raise AnsibleFilterError("cluster_hosts_block: %s" % exc) from exc


def cluster_known_hosts(nodes, host_keys):
    """Nodes and ``{host: host key text or lines}`` -> the known_hosts block."""
    if not isinstance(host_keys, Mapping):
        raise AnsibleFilterError(
            "cluster_known_hosts: host_keys must map each node to its host keys, got %s" % type(host_keys).__name__
        )
    try:
        return cluster.known_hosts_block(_nodes(nodes, "cluster_known_hosts"), host_keys)
    except ValueError as exc:
        raise AnsibleFilterError("cluster_known_hosts: %s" % exc) from exc


def cluster_authorized_key(public_key, from_addresses=None, options=None):
    """Public key -> one authorized_keys line restricted to ``from_addresses`` (none: unrestricted)."""
    if not isinstance(public_key, str) or not public_key.strip():
        raise AnsibleFilterError("cluster_authorized_key: input must be the public key text")
    for name, value in (("from_addresses", from_addresses), ("options", options)):
        if value is not None and (isinstance(value, (str, Mapping)) or not hasattr(value, "__iter__")):
            raise AnsibleFilterError("cluster_authorized_key: %s must be a list, got %s" % (name, type(value).__name__))
    return cluster.authorized_key_line(public_key, list(from_addresses or []), list(options or []))


class FilterModule(object):
    """scc.training cluster-stage filters."""

    def filters(self):
        return {
            "cluster_addresses": cluster_addresses,
            "cluster_hosts_block": cluster_hosts_block,
            "cluster_known_hosts": cluster_known_hosts,
            "cluster_authorized_key": cluster_authorized_key,
        }
