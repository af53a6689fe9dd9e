# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""Cluster-stage filters for scc.training: thin wrappers over plugins/module_utils/cluster.py.

``cluster_addresses`` (the address rule of hosts_file, ssh_trust and nccl_check) and ``cluster_inventory_problems``
(the cluster-wide rules of validate.yml). The roles' own computations are plans of the lookup scc.training.role_plan.
Their documentation lives in the sidecar ``<filter name>.yml`` files.
"""

from __future__ import annotations

from ansible.errors import AnsibleError, AnsibleFilterError

from ansible_collections.scc.training.plugins.plugin_utils.filter_errors import (
    lazy_module_utils,
    require_hosts,
    require_list,
    require_mapping,
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


def cluster_inventory_problems(hosts, hostvars, expected_size=None):
    """The cluster group's names and hostvars -> bad host names, nodes sharing an ansible_host and (with
    ``expected_size``, scc_cluster_size) a group of another size (judged once)."""
    hosts = require_hosts(hosts, hostvars, "cluster_inventory_problems")
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


class FilterModule(object):
    """scc.training cluster-stage filters."""

    def filters(self):
        return {f.__name__: f for f in (cluster_addresses, cluster_inventory_problems)}
