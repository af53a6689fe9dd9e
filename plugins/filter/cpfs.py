# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""CPFS filters for scc.training, thin wrappers over plugins/module_utils/cpfs.py: ``cpfs_nfs_client`` (which client
mounts CPFS's protocol service on one host). Their documentation lives in the sidecar ``<filter name>.yml`` files."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.scc.training.plugins.plugin_utils.filter_errors import (
    filter_call,
    lazy_module_utils,
    require_mapping,
    require_settings,
)

cpfs = lazy_module_utils("cpfs")


def cpfs_nfs_client(settings, host_facts):
    """cpfs_mount's client settings + one host's facts -> {client, reason, problems}."""
    return filter_call(
        "cpfs_nfs_client",
        cpfs.cpfs_nfs_client,
        require_settings(settings, "cpfs_nfs_client"),
        require_mapping(host_facts, "cpfs_nfs_client", "the host's facts must be a dict"),
    )


class FilterModule(object):
    """scc.training CPFS filters."""

    def filters(self):
        return {f.__name__: f for f in (cpfs_nfs_client,)}
