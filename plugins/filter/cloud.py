# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""``cloud_node_plan``: what provision.yml asks of the cloud for the GPU nodes (HPC cluster, Elastic RDMA Interfaces,
UEFI image, eRDMA MTU), a thin wrapper over plugins/module_utils/cloud_nodes.py. Documentation: cloud_node_plan.yml."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.scc.training.plugins.plugin_utils.filter_errors import (
    lazy_module_utils,
    require_settings,
)

cloud_nodes = lazy_module_utils("cloud_nodes")


def cloud_node_plan(settings):
    """provision.yml's scc_cloud_instance_type, scc_cloud_eri_count, scc_cloud_jumbo_frames -> the node plan."""
    return cloud_nodes.node_plan(require_settings(settings, "cloud_node_plan"))


class FilterModule(object):
    """scc.training cloud node filter."""

    def filters(self):
        return {"cloud_node_plan": cloud_node_plan}
