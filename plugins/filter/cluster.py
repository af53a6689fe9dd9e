# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""Cluster-stage filters for scc.training: thin wrappers over plugins/module_utils/cluster.py.

``cluster_addresses`` (the address rule of hosts_file and ssh_trust),
``cluster_hosts_block``, ``cluster_stale_hosts_regex``, ``cluster_known_hosts``, ``cluster_authorized_key``,
the verify checks ``cluster_resolution_problems``, ``cluster_ring_peers``, ``cluster_mesh_problems``,
``mpi_hostfile_check_problems``, the cluster-wide rules ``cluster_inventory_problems`` and ``cluster_node_problems``,
and ``mpi_hostfile_slots``.
Their documentation lives in the sidecar ``<filter name>.yml`` files.
"""

from __future__ import annotations

from ansible.errors import AnsibleError, AnsibleFilterError

from ansible_collections.scc.training.plugins.plugin_utils.filter_errors import (
    filter_call,
    lazy_module_utils,
    require_list,
    require_mapping,
    require_text,
)

cluster = lazy_module_utils("cluster")


def cluster_addresses(hosts, hostvars, interface=""):
    """Inventory hosts -> ``[{host, address, names, peer_names}]`` (address null when the rule finds none)."""
    hosts = [
        str(h) for h in require_list(hosts, "cluster_addresses", "the input (inventory host names) must be a list")
    ]
    require_mapping(hostvars, "cluster_addresses", "hostvars must be a mapping")
    if not isinstance(interface, str):
        raise AnsibleFilterError("cluster_addresses: interface must be a string, got %s" % type(interface).__name__)
    missing = [h for h in hosts if h not in hostvars]
    if missing:
        raise AnsibleFilterError("cluster_addresses: not in the inventory: %s" % ", ".join(missing))
    return cluster.cluster_nodes(hosts, hostvars, interface.strip())


def cluster_hosts_block(nodes):
    """Nodes -> the /etc/hosts block (``address name [short]`` lines)."""
    nodes = require_list(nodes, "cluster_hosts_block", "the input (cluster_addresses' nodes) must be a list")
    return filter_call("cluster_hosts_block", cluster.hosts_block, nodes)


def cluster_stale_hosts_regex(nodes):
    """Nodes -> the regular expression of /etc/hosts lines mapping a cluster name to another address."""
    nodes = require_list(nodes, "cluster_stale_hosts_regex", "the input (cluster_addresses' nodes) must be a list")
    return filter_call("cluster_stale_hosts_regex", cluster.stale_hosts_regex, nodes)


def cluster_known_hosts(nodes, host_keys):
    """Nodes and ``{host: host key text or lines}`` -> the known_hosts block."""
    nodes = require_list(nodes, "cluster_known_hosts", "the input (cluster_addresses' nodes) must be a list")
    require_mapping(host_keys, "cluster_known_hosts", "host_keys (each node's host keys) must be a mapping")
    return filter_call("cluster_known_hosts", cluster.known_hosts_block, nodes, host_keys)


def cluster_authorized_key(public_key, from_addresses=None, options=None):
    """Public key -> one authorized_keys line restricted to ``from_addresses`` (none: unrestricted)."""
    if not isinstance(public_key, str) or not public_key.strip():
        raise AnsibleFilterError("cluster_authorized_key: input must be the public key text")
    from_addresses = require_list(from_addresses or [], "cluster_authorized_key", "from_addresses must be a list")
    options = require_list(options or [], "cluster_authorized_key", "options must be a list")
    return cluster.authorized_key_line(public_key, from_addresses, options)


def cluster_resolution_problems(report, nodes):
    """One node's ``NAME<TAB>RC<TAB>getent line`` report -> the names that do not resolve to their node's address."""
    report = require_text(report, "cluster_resolution_problems", "the verify command's report as a string")
    nodes = require_list(nodes, "cluster_resolution_problems", "nodes (cluster_addresses' nodes) must be a list")
    return filter_call("cluster_resolution_problems", cluster.resolution_problems, nodes, report, errors=(KeyError,))


def cluster_ring_peers(hosts, host, scope="mesh"):
    """The peers ``host`` checks, in ring order: every other node (``mesh``), or with ``ring`` the first node
    every other and each other node its successor (cluster.verify_peers)."""
    hosts = require_list(hosts, "cluster_ring_peers", "the input (inventory host names) must be a list")
    try:
        return cluster.verify_peers(hosts, str(host), scope)
    except ValueError as error:
        raise AnsibleFilterError("cluster_ring_peers: %s" % error) from None


def cluster_mesh_problems(report, peers, nodenames=None):
    """One node's ``PEER<TAB>RC<TAB>STDOUT<TAB>STDERR`` report -> the peers that did not answer with their hostname."""
    report = require_text(report, "cluster_mesh_problems", "the verify command's report as a string")
    peers = [
        str(p) for p in require_list(peers, "cluster_mesh_problems", "peers (inventory host names) must be a list")
    ]
    nodenames = require_mapping(nodenames or {}, "cluster_mesh_problems", "nodenames must be a mapping")
    return cluster.mesh_problems(report, peers, nodenames)


def _hosts_in(hosts, hostvars, filter_name):
    hosts = [str(h) for h in require_list(hosts, filter_name, "the input (inventory host names) must be a list")]
    require_mapping(hostvars, filter_name, "hostvars must be a mapping")
    missing = [h for h in hosts if h not in hostvars]
    if missing:
        raise AnsibleFilterError("%s: not in the inventory: %s" % (filter_name, ", ".join(missing)))
    return hosts


def cluster_inventory_problems(hosts, hostvars, expected_size=None):
    """The cluster group's names and hostvars -> bad host names, nodes sharing an ansible_host and (with
    ``expected_size``, scc_cluster_size) a group of another size (judged once)."""
    hosts = _hosts_in(hosts, hostvars, "cluster_inventory_problems")
    if expected_size is not None and (isinstance(expected_size, bool) or not str(expected_size).isdigit()):
        raise AnsibleFilterError(
            "cluster_inventory_problems: scc_cluster_size must be an integer, got %r" % expected_size
        )
    # Only ansible_host is read, and never for a name refused as a host name: Ansible's hostvars read the fact cache,
    # whose jsonfile entry (named "s1_" + the name) fails with "File name too long" past 252 characters.
    plain, unreadable = {}, []
    for host in hosts:
        if cluster.host_name_problems([host]):
            plain[host] = {}
            continue
        try:
            plain[host] = {"ansible_host": hostvars[host].get("ansible_host")}
        except (OSError, AnsibleError) as exc:
            plain[host] = {}
            unreadable.append(
                "%r: its variables cannot be read (%s); with the jsonfile fact cache an inventory name may have at "
                "most 252 characters" % (host, str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
            )
    return cluster.inventory_problems(hosts, plain, expected_size) + unreadable


def cluster_node_problems(nodes, rule, need_facts=False, need_host_keys=False):
    """cluster_addresses' nodes -> nodes without an address, sharing one, or (when needed) without facts."""
    nodes = require_list(nodes, "cluster_node_problems", "the input (cluster_addresses' nodes) must be a list")
    return filter_call(
        "cluster_node_problems",
        cluster.node_problems,
        nodes,
        str(rule),
        bool(need_facts),
        bool(need_host_keys),
        errors=(KeyError,),
    )


def mpi_hostfile_slots(hosts, hostvars):
    """The hostfile's nodes -> ``[{host, slots}]`` from every node's inventory and (cached) facts."""
    hosts = _hosts_in(hosts, hostvars, "mpi_hostfile_slots")
    return filter_call("mpi_hostfile_slots", cluster.hostfile_slots, hosts, hostvars)


def mpi_hostfile_check_problems(report, content, path):
    """mpi_hostfile's verify report on one node -> what differs from the rendered hostfile or does not resolve."""
    report = require_text(report, "mpi_hostfile_check_problems", "the verify command's report as a string")
    content = require_text(content, "mpi_hostfile_check_problems", "content (the rendered hostfile)")
    return cluster.hostfile_check_problems(report, content, str(path))


class FilterModule(object):
    """scc.training cluster-stage filters."""

    def filters(self):
        filters = (
            cluster_addresses,
            cluster_hosts_block,
            cluster_stale_hosts_regex,
            cluster_known_hosts,
            cluster_authorized_key,
            cluster_inventory_problems,
            cluster_node_problems,
            mpi_hostfile_check_problems,
            mpi_hostfile_slots,
            cluster_resolution_problems,
            cluster_ring_peers,
            cluster_mesh_problems,
        )
        return {f.__name__: f for f in filters}
